"""A scenario document as TOML text laid out as the scenario files in `scenarios/` are:
tables and arrays of tables, each entry's small tables (`queue`, `tcp`, `on_off`) inline."""

from __future__ import annotations

import json
import re
from typing import Any

#: Lists of names wrap at this width.
WIDTH = 100


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def value(v: Any) -> str:
    """`v` as a TOML value (inline tables and arrays for dicts and lists)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        # JSON's escapes are TOML's, but for DEL, which TOML escapes and JSON does not.
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {value(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"{type(v).__name__} is not a TOML value")


def _pair(key: str, v: Any) -> list[str]:
    text = f"{_key(key)} = {value(v)}"
    if len(text) <= WIDTH or not isinstance(v, list):
        return [text]
    lines, line = [f"{_key(key)} = ["], "   "
    for item in v:
        piece = f" {value(item)},"
        if len(line) + len(piece) > WIDTH:
            lines.append(line)
            line = "   "
        line += piece
    return [*lines, line, "]"]


def dumps(doc: dict[str, Any], comments: list[str]) -> str:
    """The document's TOML text, after `comments` (one `#` line each)."""
    lines = [f"# {c}" for c in comments]
    tables = {k: v for k, v in doc.items() if isinstance(v, dict)}
    arrays = {
        k: v for k, v in doc.items() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)
    }
    for key, v in doc.items():
        if key not in tables and key not in arrays:
            lines += _pair(key, v)
    for key, table in tables.items():
        lines += ["", f"[{_key(key)}]"]
        for k, v in table.items():
            lines += _pair(k, v)
    for key, entries in arrays.items():
        for entry in entries:
            lines += ["", f"[[{_key(key)}]]"]
            for k, v in entry.items():
                lines += _pair(k, v)
    return "\n".join(lines) + "\n"
