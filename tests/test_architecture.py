"""The code's shape, as issues 19 and 28 fix it: no source file over 900 lines, and the
modules of every crate depend on each other without a cycle (each can be read knowing only
those it uses), so that a congestion controller, a queue or a recovery variant is added
without touching the rest. The cycles left are listed with their reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def module_of(path: Path, src: Path = TCP_SRC) -> str:
    """`recovery/reno.rs` -> `recovery::reno`; `recovery/mod.rs` -> `recovery`; `lib.rs` -> ``."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return "::".join(parts)


def dependencies(path: Path, modules: set[str], src: Path = TCP_SRC) -> set[str]:
    """The modules `path` uses outside its unit tests (`crate::a::b`, `super::c`)."""
    text = path.read_text(encoding="utf-8").split("#[cfg(test)]\nmod tests")[0]
    text = re.sub(r"//.*", "", text)
    here = module_of(path, src)
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
    # `use child::Item` depends on the child module; `pub use child::Item` only re-exports it
    # (a facade over its children, which the parent's own code need not read).
    for child in re.findall(r"^\s*use (\w+)::", text, re.M):
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


#: Module cycles still allowed, as (crate, from, to) with the reason beside each (none left).
ALLOWED_CYCLE_EDGES: set[tuple[str, str, str]] = set()


@pytest.mark.parametrize("crate", sorted(p.name for p in (ROOT / "crates").iterdir() if (p / "src").is_dir()))
def test_no_crate_has_a_module_cycle(crate):
    src = ROOT / "crates" / crate / "src"
    files = sorted(src.rglob("*.rs"))
    modules = {module_of(p, src) for p in files}
    graph = {module_of(p, src): dependencies(p, modules, src) for p in files}
    for name, source, target in ALLOWED_CYCLE_EDGES:
        if name == crate:
            assert target in graph[source], f"{source} -> {target} is gone: drop the exception"
            graph[source].discard(target)
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_engine_reads_the_resolved_model_only():
    """`sim` imports the scenario's model and routes, never the resolver or the file schema."""
    src = ROOT / "crates" / "congsim" / "src"
    files = sorted(src.rglob("*.rs"))
    modules = {module_of(p, src) for p in files}
    engine = [p for p in files if module_of(p, src).split("::")[0] == "sim"]
    used = {d for p in engine for d in dependencies(p, modules, src)}
    scenario = {d for d in used if d.split("::")[0] == "scenario"}
    assert scenario == {"scenario::model", "scenario::routes"}, scenario


#: Functions allowed past FUNCTION_LINES, each with the reason (none left).
LONG_FUNCTIONS_ALLOWED: dict[str, str] = {}
FUNCTION_LINES = 150


def long_functions(path: Path) -> dict[str, int]:
    """Functions of a Rust or Python file longer than FUNCTION_LINES, by `file::name`."""
    text = path.read_text(encoding="utf-8")
    found: dict[str, int] = {}
    if path.suffix == ".py":
        import ast

        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > FUNCTION_LINES:
                    found[f"{path.relative_to(ROOT)}::{node.name}"] = length
        return found
    lines = text.splitlines()
    head = re.compile(r"^(\s*)(?:pub(?:\([\w:]+\))? )?(?:const )?(?:unsafe )?fn (\w+)")
    for start, line in enumerate(lines):
        if (match := head.match(line)) is None:
            continue
        indent, name = match.groups()
        for end in range(start + 1, len(lines)):
            if lines[end] == f"{indent}}}":
                if end - start + 1 > FUNCTION_LINES:
                    found[f"{path.relative_to(ROOT)}::{name}"] = end - start + 1
                break
    return found


def test_no_function_is_over_150_lines():
    sources = [*ROOT.glob("crates/*/src/**/*.rs"), *ROOT.glob("python/congsim/**/*.py")]
    long = {name: n for p in sources for name, n in long_functions(p).items()}
    assert long.keys() <= LONG_FUNCTIONS_ALLOWED.keys(), {
        k: v for k, v in long.items() if k not in LONG_FUNCTIONS_ALLOWED
    }
    assert not LONG_FUNCTIONS_ALLOWED.keys() - long.keys(), "shortened: drop them from the list"


def python_imports(path: Path, package: Path) -> set[str]:
    """The `congsim` modules a Python file imports when it is imported: its top-level imports,
    not those inside functions (deferred on purpose) or under `if TYPE_CHECKING:`."""
    import ast

    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("congsim")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("congsim"):
            found.add(node.module)
            # `from congsim.studies import goyal1996` imports the submodule.
            found |= {
                f"{node.module}.{alias.name}"
                for alias in node.names
                if (package.parent / node.module.replace(".", "/") / f"{alias.name}.py").exists()
            }
    return found


def test_the_python_package_has_no_import_cycle():
    package = ROOT / "python" / "congsim"
    files = sorted(package.rglob("*.py"))

    def name(path: Path) -> str:
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    modules = {name(p) for p in files}
    # A package's `__init__` imports its modules; a module of it importing the package by
    # name (`from congsim.sweep import x`) reads only what `__init__` re-exports.
    graph = {name(p): {m for m in python_imports(p, package) if m in modules and m != name(p)} for p in files}
    for module, used in graph.items():
        graph[module] = {m for m in used if not module.startswith(f"{m}.")}
    assert "congsim.studies.judge" in graph["congsim.studies.run"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])
