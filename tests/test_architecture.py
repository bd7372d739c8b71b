"""The code's shape, as issue 19 fixed it: no source file over 900 lines, and the modules of
`congsim-tcp` depend on each other without a cycle (each can be read knowing only those it
uses), so that a congestion controller or a recovery variant is added without touching the
rest."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TCP_SRC = ROOT / "crates" / "congsim-tcp" / "src"
MAX_LINES = 900


def test_no_source_file_is_over_900_lines():
    sources = [*ROOT.glob("crates/*/src/**/*.rs"), *ROOT.glob("python/congsim/**/*.py")]
    too_long = {
        str(p.relative_to(ROOT)): n
        for p in sources
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not too_long


def module_of(path: Path) -> str:
    """`recovery/reno.rs` -> `recovery::reno`; `recovery/mod.rs` -> `recovery`; `lib.rs` -> ``."""
    parts = list(path.relative_to(TCP_SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return "::".join(parts)


def dependencies(path: Path, modules: set[str]) -> set[str]:
    """The modules `path` uses outside its unit tests (`crate::a::b`, `super::c`)."""
    text = path.read_text(encoding="utf-8").split("#[cfg(test)]\nmod tests")[0]
    text = re.sub(r"//.*", "", text)
    here = module_of(path)
    parent = here.rpartition("::")[0] if path.name != "lib.rs" else ""
    found = set()
    for prefix, rest in re.findall(r"\b(crate|super)::((?:\w+::)*\w+|\*|\{)", text):
        base = "" if prefix == "crate" else parent
        names = [] if rest in ("*", "{") else rest.split("::")
        # The longest prefix of the path that names a module.
        target = base
        for name in names:
            candidate = f"{target}::{name}" if target else name
            if candidate not in modules:
                break
            target = candidate
        if target != here:
            found.add(target)
    # `use child::Item` (a re-export) depends on the child module.
    for child in re.findall(r"^\s*(?:pub(?:\(crate\))? )?use (\w+)::", text, re.M):
        if (module := f"{here}::{child}" if here else child) in modules:
            found.add(module)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_congsim_tcp_modules_form_no_cycle():
    files = sorted(TCP_SRC.rglob("*.rs"))
    modules = {module_of(p) for p in files}
    graph = {module_of(p): dependencies(p, modules) for p in files}
    # The graph is read at all: the sender uses the recovery variants, which use the core.
    assert "recovery" in graph["sender"] and "sender_core" in graph["recovery::reno"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
