"""Results of a run as pandas DataFrames, written as Parquet and CSV."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from congsim import _core
from congsim._interrupts import HeldCtrlC

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from congsim.plot import ResultsPlot

#: Tables every run produces, then those produced on request.
ALWAYS = ("flows", "links", "summary")
#: `congsim._core.OPTIONAL_TABLES`: the Rust core's list.
OPTIONAL = tuple(_core.OPTIONAL_TABLES)


def _new_folder(parent: Path, prefix: str) -> Path:
    """A new, empty folder in `parent` named `<prefix><random>.partial`, with the permissions
    of any new folder (`tempfile.mkdtemp` would make it private, and it becomes the results)."""
    for _ in range(100):
        folder = parent / f"{prefix}{os.urandom(4).hex()}.partial"
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(errno.EEXIST, "no free name for a temporary folder", str(parent))


#: A column as the native module hands it over: `(kind, little-endian bytes, categories)`.
Encoded = tuple[str, bytearray, list[str] | None]


def decode(column: Encoded) -> np.ndarray[Any, Any]:
    """A column from the native module as a NumPy array: `f64` as float64, `u64` as int64 (the
    dtype pandas gives Python ints; counters stay far below 2^63), `str` as an object array of
    the column's distinct strings, indexed by the codes (so a repeated name is one object).
    Number arrays view the bytes without a copy."""
    import numpy as np  # here, not at the top: `import congsim` (and the command's start) stays fast

    kind, data, categories = column
    if kind == "f64":
        return np.frombuffer(data, dtype="<f8")
    if kind == "u64":
        return np.frombuffer(data, dtype="<u8").view(np.int64)
    if kind == "str" and categories is not None:
        texts: np.ndarray[Any, Any] = np.asarray(categories, dtype=object)
        return np.take(texts, np.frombuffer(data, dtype="<u4"))
    raise ValueError(f"unknown column kind {kind!r} from the native module")


def _frame_column(column: Encoded) -> Any:
    """A column for a DataFrame, in the dtype pandas gives the same values as Python objects.
    Text goes through an Arrow dictionary when pandas keeps text in Arrow (pandas 3): building
    it from Python strings checks every one of them and costs several times more."""
    import numpy as np
    import pandas as pd

    kind, data, categories = column
    text_dtype = pd.Series(["text"]).dtype
    if kind != "str" or categories is None or getattr(text_dtype, "storage", None) != "pyarrow":
        return decode(column)
    import pyarrow as pa

    codes = pa.array(np.frombuffer(data, dtype="<u4"))
    text = pa.DictionaryArray.from_arrays(codes, pa.array(categories, type=pa.string()))
    return pd.array(text.dictionary_decode(), dtype=text_dtype)


class Results:
    """The tables of one run: `flows`, `links`, `summary` and, when asked for in the scenario's
    `[metrics]`, `flow_series`, `link_series`, `tcp_events` and `sequence` (the time-sequence
    trace); `cbr` when the scenario has CBR sources; `classes` when it has priority queues;
    `transfers` when it has random transfers; `atm_ports` and `atm_vcs` when it has ATM links;
    `flow_links` (each flow's arrivals, drops and marks per IP link) with `flow_monitor`;
    `sojourn` (each packet's wait in the queue of the links named) with `sojourn_links`;
    `warnings` when the scenario has settings that do nothing or defeat themselves.

    `tables` is what `congsim._core.run` returns: columns as bytes (see `decode`), turned into
    arrays when a table is first asked for."""

    def __init__(self, tables: dict[str, Any], wall_s: float | None = None) -> None:
        tables = dict(tables)
        self.captures: dict[str, bytes] = tables.pop("captures", {})
        """Packet captures requested by the scenario: file name to pcap bytes."""
        self.wall_s = wall_s
        """How long the run took in wall-clock seconds, when whoever ran it measured it."""
        self._encoded: dict[str, dict[str, Encoded]] = tables
        self._decoded: dict[str, dict[str, np.ndarray[Any, Any]]] = {}

    def _missing(self, name: str) -> KeyError:
        """Why table `name` is not among this run's tables."""
        if name == "cbr":
            return KeyError("the scenario has no [[cbr]] sources")
        if name == "transfers":
            return KeyError("the scenario has no [[transfers]] groups")
        if name == "classes":
            return KeyError('the scenario has no class-based queue (queue.kind = "priority" or "cbq")')
        if name in ("atm_ports", "atm_vcs"):
            return KeyError("the scenario has no ATM links (atm = true)")
        if name in OPTIONAL:
            return KeyError(f"{name} was not recorded: enable it in the scenario's [metrics] table")
        return KeyError(f"no table {name!r}; tables are: {', '.join(self.names)}")

    def table(self, name: str) -> pd.DataFrame:
        import pandas as pd

        if name == "warnings" and name not in self._encoded:
            empty: pd.DataFrame = pd.DataFrame({"field": [], "message": []}, dtype=str)
            return empty
        if name not in self._encoded:
            raise self._missing(name)
        columns = {column: _frame_column(encoded) for column, encoded in self._encoded[name].items()}
        # The arrays are this object's own (fresh from the native module), so no copy is needed.
        frame: pd.DataFrame = pd.DataFrame(columns, copy=False)
        return frame

    def columns(self, name: str) -> dict[str, np.ndarray[Any, Any]]:
        """Table `name`'s columns as NumPy arrays, in order, without building a DataFrame."""
        if name not in self._encoded:
            raise self._missing(name)
        if name not in self._decoded:
            self._decoded[name] = {column: decode(encoded) for column, encoded in self._encoded[name].items()}
        return self._decoded[name]

    def numbers(self) -> tuple[list[str], list[str], list[str], list[float]]:
        """The run's numeric results in long form, as columns `(table, flow, metric, value)`:
        every number of the `summary` (flow empty) and `flows` tables. What a sweep stores per
        run; plain lists, so that it costs no pandas import."""
        table_col: list[str] = []
        flow_col: list[str] = []
        metric_col: list[str] = []
        value_col: list[float] = []
        for table, flow_column in (("summary", None), ("flows", "flow")):
            columns = self.columns(table)
            n = len(next(iter(columns.values())))
            flows = [""] * n if flow_column is None else [str(f) for f in columns[flow_column]]
            for name, values in columns.items():
                if values.dtype.kind not in "iuf" or name in ("seed", "replication"):
                    continue
                table_col += [table] * n
                flow_col += flows
                metric_col += [name] * n
                value_col += values.astype(float).tolist()
        return table_col, flow_col, metric_col, value_col

    @property
    def names(self) -> list[str]:
        return [n for n in (*ALWAYS, *OPTIONAL) if n in self._encoded]

    @property
    def flows(self) -> pd.DataFrame:
        return self.table("flows")

    @property
    def links(self) -> pd.DataFrame:
        return self.table("links")

    @property
    def summary(self) -> pd.DataFrame:
        return self.table("summary")

    @property
    def flow_series(self) -> pd.DataFrame:
        return self.table("flow_series")

    @property
    def link_series(self) -> pd.DataFrame:
        return self.table("link_series")

    @property
    def tcp_events(self) -> pd.DataFrame:
        return self.table("tcp_events")

    @property
    def sequence(self) -> pd.DataFrame:
        return self.table("sequence")

    @property
    def flow_links(self) -> pd.DataFrame:
        return self.table("flow_links")

    @property
    def cbr(self) -> pd.DataFrame:
        return self.table("cbr")

    @property
    def classes(self) -> pd.DataFrame:
        return self.table("classes")

    @property
    def transfers(self) -> pd.DataFrame:
        return self.table("transfers")

    @property
    def atm_ports(self) -> pd.DataFrame:
        return self.table("atm_ports")

    @property
    def atm_vcs(self) -> pd.DataFrame:
        return self.table("atm_vcs")

    @property
    def atm_series(self) -> pd.DataFrame:
        return self.table("atm_series")

    @property
    def abr_series(self) -> pd.DataFrame:
        return self.table("abr_series")

    @property
    def warnings(self) -> list[str]:
        """The scenario's warnings (`field: message`): settings that do nothing or defeat
        themselves. The `warnings` table has them as columns."""
        if "warnings" not in self._encoded:
            return []
        columns = self.columns("warnings")
        return [f"{f}: {m}" for f, m in zip(columns["field"], columns["message"], strict=True)]

    def write(self, directory: str | Path) -> list[Path]:
        """Writes every table as `<name>.parquet` and `<name>.csv`, and every capture as its
        pcap file; returns the paths.

        All or nothing: the files are written into a temporary folder first, then put in place.
        A `directory` that does not exist appears with every file at once (the temporary folder,
        made beside it, is renamed). In one that exists, the files replace those of the same
        name, and the tables of an earlier run that this run does not have (a `sequence` table,
        say) are removed, so that the folder holds one run; other files stay. Ctrl-C waits for
        these renames, which take microseconds. So a write that fails or is interrupted leaves
        `directory` as it was (a process killed outright may leave a hidden `.*.partial`
        folder, in it or beside it)."""
        import shutil

        if not isinstance(directory, str | os.PathLike):
            raise TypeError(f"directory must be a folder's path, not {type(directory).__name__}")
        if str(directory) == "":
            raise ValueError("directory must not be empty (the tables would go into the current folder)")
        out = Path(directory)
        if out.exists() and not out.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(out))
        exists = out.is_dir()
        if not exists:
            out.parent.mkdir(parents=True, exist_ok=True)
        staging: Path | None = None
        try:
            with HeldCtrlC():  # made and to be removed: not one without the other
                # Inside an existing folder: on its file system, where we may write.
                where, prefix = (out, ".congsim-") if exists else (out.parent, f".{out.name}.")
                staging = _new_folder(where, prefix)
            names = self._write_files(staging)
            stale = [
                out / f"{name}.{ending}"
                for name in (*ALWAYS, *OPTIONAL)
                if name not in self.names
                for ending in ("parquet", "csv")
            ]
            taken = [name for name in names if (out / name).is_dir()]
            if taken:
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(out / taken[0]))
            with HeldCtrlC():
                if exists:
                    for name in names:
                        os.replace(staging / name, out / name)
                    for path in stale:
                        path.unlink(missing_ok=True)
                else:
                    staging.rename(out)
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
        return [out / name for name in names]

    def _write_files(self, folder: Path) -> list[str]:
        """Every table and capture into `folder`; their file names."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        names = []
        for name in self.names:
            frame = self.table(name)
            pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), folder / f"{name}.parquet")
            frame.to_csv(folder / f"{name}.csv", index=False)
            names += [f"{name}.parquet", f"{name}.csv"]
        for file, data in self.captures.items():
            (folder / file).write_bytes(data)
            names.append(file)
        return names

    @property
    def plot(self) -> ResultsPlot:
        """Plots of the run's time series: `results.plot.cwnd()`, `.queue()`, `.throughput()`
        (see `congsim.plot.ResultsPlot`)."""
        from congsim.plot import ResultsPlot

        return ResultsPlot(self)

    def _repr_html_(self) -> str:
        """A notebook's view: what ran, the flows, the links that dropped packets and a cwnd
        plot when the run recorded the series."""
        from congsim.notebook import results_html

        return results_html(self, self.wall_s)

    def __repr__(self) -> str:
        return f"Results(tables={self.names})"


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """`frame` as CSV under a temporary name, then renamed: never half a file, even interrupted."""
    temporary = path.with_name(f"{path.name}.tmp")
    try:
        frame.to_csv(temporary, index=False)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
