"""Results of a run as pandas DataFrames, written as Parquet and CSV."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from congsim import _core

if TYPE_CHECKING:
    import pandas as pd

#: Tables every run produces, then those produced on request.
ALWAYS = ("flows", "links", "summary")
#: `congsim._core.OPTIONAL_TABLES`: the Rust core's list.
OPTIONAL = tuple(_core.OPTIONAL_TABLES)


class Results:
    """The tables of one run: `flows`, `links`, `summary` and, when asked for in the scenario's
    `[metrics]`, `flow_series`, `link_series`, `tcp_events` and `sequence` (the time-sequence
    trace); `cbr` when the scenario has CBR sources; `classes` when it has priority queues;
    `transfers` when it has random transfers; `atm_ports` and `atm_vcs` when it has ATM links;
    `flow_links` (each flow's arrivals, drops and marks per IP link) with `flow_monitor`;
    `warnings` when the scenario has settings that do nothing or defeat themselves."""

    def __init__(self, tables: dict[str, Any]) -> None:
        tables = dict(tables)
        self.captures: dict[str, bytes] = tables.pop("captures", {})
        """Packet captures requested by the scenario: file name to pcap bytes."""
        self._columns: dict[str, dict[str, list[object]]] = tables

    def table(self, name: str) -> pd.DataFrame:
        import pandas as pd

        if name == "warnings" and name not in self._columns:
            empty: pd.DataFrame = pd.DataFrame({"field": [], "message": []}, dtype=str)
            return empty
        if name not in self._columns:
            if name == "cbr":
                raise KeyError("the scenario has no [[cbr]] sources")
            if name == "transfers":
                raise KeyError("the scenario has no [[transfers]] groups")
            if name == "classes":
                raise KeyError('the scenario has no class-based queue (queue.kind = "priority" or "cbq")')
            if name in ("atm_ports", "atm_vcs"):
                raise KeyError("the scenario has no ATM links (atm = true)")
            if name in OPTIONAL:
                raise KeyError(f"{name} was not recorded: enable it in the scenario's [metrics] table")
            raise KeyError(f"no table {name!r}; tables are: {', '.join(self.names)}")
        frame: pd.DataFrame = pd.DataFrame(self._columns[name])
        return frame

    def numbers(self) -> tuple[list[str], list[str], list[str], list[float]]:
        """The run's numeric results in long form, as columns `(table, flow, metric, value)`:
        every number of the `summary` (flow empty) and `flows` tables. What a sweep stores per
        run; plain lists, so that it costs no pandas import."""
        table_col: list[str] = []
        flow_col: list[str] = []
        metric_col: list[str] = []
        value_col: list[float] = []
        for table, flow_column in (("summary", None), ("flows", "flow")):
            columns = self._columns[table]
            n = len(next(iter(columns.values())))
            flows = [""] * n if flow_column is None else [str(f) for f in columns[flow_column]]
            for name, values in columns.items():
                if not values or not isinstance(values[0], int | float) or name in ("seed", "replication"):
                    continue
                table_col += [table] * n
                flow_col += flows
                metric_col += [name] * n
                value_col += [float(v) for v in values]  # type: ignore[arg-type]
        return table_col, flow_col, metric_col, value_col

    @property
    def names(self) -> list[str]:
        return [n for n in (*ALWAYS, *OPTIONAL) if n in self._columns]

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
    def warnings(self) -> list[str]:
        """The scenario's warnings (`field: message`): settings that do nothing or defeat
        themselves. The `warnings` table has them as columns."""
        columns = self._columns.get("warnings")
        if columns is None:
            return []
        return [f"{f}: {m}" for f, m in zip(columns["field"], columns["message"], strict=True)]

    def write(self, directory: str | Path) -> list[Path]:
        """Writes every table as `<name>.parquet` and `<name>.csv`, and every capture as its
        pcap file; returns the paths."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name in self.names:
            frame = self.table(name)
            parquet = out / f"{name}.parquet"
            pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), parquet)
            csv = out / f"{name}.csv"
            frame.to_csv(csv, index=False)
            written += [parquet, csv]
        for file, data in self.captures.items():
            (out / file).write_bytes(data)
            written.append(out / file)
        return written

    def _repr_html_(self) -> str:
        return "<h4>congsim results</h4>" + self.summary.to_html(index=False)

    def __repr__(self) -> str:
        return f"Results(tables={self.names})"
