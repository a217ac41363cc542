"""The house in layers: the two sides of the process boundary stay apart, and on the
host every import points one way, down the table of layers ARCHITECTURE.md shows.

The env side (``harness/envside/``) runs on every combo's interpreter, Python 3.8 to
3.13, with nothing installed but the libraries under test: it must parse as Python 3.8
and import only the standard library and its own modules. Its modules live in a few
rooms (sub-packages by concern), and its imports too point one way, down :data:`ROOMS`. The host never imports it to
run it (it starts its launcher with another interpreter); it imports only the modules
that declare what crosses the boundary (:data:`SHARED`), which both sides use.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

ENVSIDE = ROOT / "harness" / "envside"
# Each benchmark's own env-side modules live in its folder (``benchmarks/<name>/envside``)
# and are imported as ``<envside>.benchmarks.<name>.<module>`` (harness/envside/benchmarks.py).
BENCHMARK_SIDES = sorted((ROOT / "harness" / "benchmarks").glob("*/envside"))


def _env_name_parts(path: Path) -> tuple[str, ...]:
    """A file's place in the env-side package: ``bridge/guard.py`` → (bridge, guard);
    ``benchmarks/cibench/envside/cells.py`` → (benchmarks, cibench, cells)."""
    if ENVSIDE in path.parents:
        return path.relative_to(ENVSIDE).with_suffix("").parts
    name = path.parent.parent.name  # <name>/envside/<module>.py
    return ("benchmarks", name, path.stem)


ENV_FILES = sorted(
    [*ENVSIDE.rglob("*.py"), *(p for side in BENCHMARK_SIDES for p in side.glob("*.py"))],
    key=_env_name_parts,
)
HOST = [
    p
    for p in (ROOT / "harness").rglob("*.py")
    if ENVSIDE not in p.parents and not any(side in p.parents for side in BENCHMARK_SIDES)
]


def imported_modules(tree: ast.AST) -> list[tuple[str, int]]:
    """(absolute module name or '.relative', level) of every import in ``tree``."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def _env_id(path: Path) -> str:
    return "/".join(_env_name_parts(path)) + ".py"


def test_the_env_side_is_a_few_rooms_of_modules() -> None:
    top = {p.name for p in ENVSIDE.glob("*.py")}
    assert top >= {"__init__.py", "__main__.py", "entry.py", "protocol.py", "allowlist.py"}
    rooms = {p.parent.name for p in ENVSIDE.glob("*/*.py")} | {"benchmarks"}
    assert rooms == {name for name, _ in ROOMS if name not in (DECLARATIONS, COMMANDS)}
    assert not list(ENVSIDE.glob("*/*/*.py")), "a room is one folder of modules, no deeper"
    assert {"scheduler.py", "execution.py", "sandbox.py", "guard.py", "transport.py"} <= {
        p.name for p in ENVSIDE.glob("*/*.py")
    }


@pytest.mark.parametrize("path", ENV_FILES, ids=_env_id)
def test_env_side_parses_as_python_38(path: Path) -> None:
    ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 8))


@pytest.mark.parametrize("path", ENV_FILES, ids=_env_id)
def test_env_side_imports_only_the_standard_library(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    foreign = [
        name
        for name, level in imported_modules(tree)
        if level == 0 and name != "__future__" and name.split(".")[0] not in sys.stdlib_module_names
    ]
    assert foreign == []


# The env side's modules the host may import: declarations of what crosses the boundary.
SHARED = ("harness.envside.protocol", "harness.envside.allowlist")


def test_host_modules_import_only_the_shared_declarations_of_the_env_side() -> None:
    offenders = []
    for path in HOST:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [
                    node.module
                    if node.module.startswith("harness.envside.")
                    else f"{node.module}.{a.name}"
                    for a in node.names
                ]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                names = []
            offenders += [
                f"{path.relative_to(ROOT)}: {name}"
                for name in names
                if name.startswith("harness.envside") and name not in SHARED
            ]
    assert offenders == []


@pytest.mark.parametrize("module", SHARED)
def test_a_shared_declaration_is_an_env_side_module_of_the_standard_library(module: str) -> None:
    path = ROOT / (module.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text(encoding="utf-8"), feature_version=(3, 8))
    assert all(level == 0 or name == "" for name, level in imported_modules(tree)), (
        "a shared module imports nothing of the env side (the host imports it as is)"
    )


def test_a_constant_of_the_protocol_is_defined_once() -> None:
    definitions = [
        path.name
        for path in ENV_FILES + HOST
        if 'RUNS_SOLUTION = "' in path.read_text(encoding="utf-8")
    ]
    assert definitions == ["protocol.py"]


def _host_import_graph() -> dict[str, dict[str, int]]:
    """Host module → {harness module it imports: line}, every import counted: at module
    level, inside functions (a deferred import hides a cycle, it does not remove it) and
    under ``TYPE_CHECKING`` (a dependency in the types is a dependency of the design)."""
    names = {}
    for path in HOST:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        names[path] = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    known = set(names.values())
    graph: dict[str, dict[str, int]] = {}
    for path, name in names.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = graph.setdefault(name, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    prefixes = (".".join(parts[:i]) for i in range(len(parts), 0, -1))
                    targets += [next((p for p in prefixes if p in known), "")]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                # ``from harness import problem`` imports a module; ``from x import f``, x
                targets += [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                    for alias in node.names
                ]
            for target in targets:
                if target in known and target != name:
                    edges.setdefault(target, node.lineno)
    return graph


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _one_cycle(graph: dict[str, dict[str, int]], component: list[str]) -> str:
    """The shortest way around ``component`` from its first module, each step with the
    line of its import: ``a (line 3) → b (line 9) → a``."""
    start, members = component[0], set(component)
    parent: dict[str, str] = {}
    queue = [start]
    for here in queue:  # breadth first: the queue grows while it is read
        for target in sorted(graph[here]):
            if target == start:
                path = [here]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                path = [start, *reversed(path[:-1]), start]
                steps = [f"{m} (line {graph[m][path[i + 1]]})" for i, m in enumerate(path[:-1])]
                return " → ".join([*steps, start])
            if target in members and target not in parent:
                parent[target] = here
                queue.append(target)
    return " → ".join(component)  # unreachable for a strongly connected component


def test_the_host_package_has_no_import_cycle() -> None:
    graph = _host_import_graph()
    assert graph["harness.benchmarks.ds1000.load"], "the import graph was not built"
    cycles = _cycles(graph)
    assert cycles == [], "import cycles:\n" + "\n".join(_one_cycle(graph, c) for c in cycles)


# -- the layers of the host --------------------------------------------------------------

# Each layer imports only from the layers before it (and from itself). The same table is
# in ARCHITECTURE.md (test_the_architecture_shows_the_layers_the_test_enforces).
LAYERS = (
    ("core", "values every stage shares: errors, problems, outcomes, findings, JSONL, TOML"),
    ("matrix", "matrix.toml: combos, axes, dated timelines, own envs, the package index"),
    ("envs", "environments: uv lock and sync, interpreters, the workspace"),
    ("benchmarks", "one folder per benchmark behind one declaration, and their registry"),
    ("problems", "problem sets, answers, downloads, runtime datasets: over every benchmark"),
    ("execute", "execution: options, the runner, admission, the run directory, progress"),
    ("analysis", "what outcomes mean: drift, causes, staleness, validity, vintage, summary"),
    ("audit", "whether problems' tests discriminate: probes (nulls, mutants) and their health"),
    ("labs", "what re-runs executions: bisection, reach, validation, repair"),
    ("reports", "rendering only: Markdown, HTML, JUnit, charts, exports"),
    ("app", "the jobs that compose the stages: run, plan, bisect, repair, nightly, doctor"),
    ("cli", "arguments → one call → printing (cli.py, options.py, __main__.py)"),
)
_ORDER = {name: i for i, (name, _) in enumerate(LAYERS)}


# A benchmark's folder holds the stages that are about it; a module there keeps the layer
# of the stage it serves: its repaired-release writer runs the repair lab's codemods, so
# it is held to the labs' imports (and its declaration names it, for the lab to load).
BENCHMARK_LABS = ("release",)


def layer_of(module: str) -> str:
    """``harness.analysis.drift`` → analysis; a top-level module (cli, options) is cli."""
    parts = module.split(".")
    if parts[1:2] == ["benchmarks"] and parts[-1] in BENCHMARK_LABS:
        return "labs"
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in _ORDER) else "cli"


def test_every_host_module_is_in_a_layer() -> None:
    stray = [
        name
        for name in _host_import_graph()
        if layer_of(name) == "cli"
        and name not in ("harness", "harness.cli", "harness.options", "harness.__main__")
    ]
    assert stray == []


def test_imports_point_down_the_layers() -> None:
    graph = _host_import_graph()
    upward = [
        f"{module} (line {line}) imports {target}: {layer_of(module)} may not import from "
        f"{layer_of(target)}, a later layer"
        for module, edges in sorted(graph.items())
        for target, line in sorted(edges.items())
        if _ORDER[layer_of(target)] > _ORDER[layer_of(module)]
    ]
    assert upward == [], "\n".join(upward)


# -- a benchmark is a folder -------------------------------------------------------------

BENCHMARKS = ROOT / "harness" / "benchmarks"
FOLDERS = sorted(p.name for p in BENCHMARKS.iterdir() if (p / "__init__.py").is_file())


def _folder_of(module: str) -> str | None:
    parts = module.split(".")
    return (
        parts[2]
        if parts[1:2] == ["benchmarks"] and len(parts) > 2 and parts[2] in FOLDERS
        else None
    )


def test_every_benchmark_folder_declares_a_benchmark() -> None:
    assert set(FOLDERS) >= {"ds1000", "ours", "bigcodebench", "gitchameleon", "cibench", "exeds"}
    missing = [
        f for f in FOLDERS if "BENCHMARK =" not in (BENCHMARKS / f / "__init__.py").read_text()
    ]
    assert missing == []


def test_no_generic_module_imports_a_benchmarks_module() -> None:
    graph = _host_import_graph()
    found = {
        (module, target)
        for module, edges in graph.items()
        for target in edges
        if _folder_of(target) is not None and _folder_of(module) != _folder_of(target)
    }
    assert sorted(found) == [], "read the benchmark's declaration (registry) instead"


# -- the rooms of the env side -----------------------------------------------------------

# The env side's rooms, each importing only from the rooms before it (and from itself):
# its top-level declarations first, its commands last. The same order is in
# ARCHITECTURE.md and in harness/envside/__init__.py.
DECLARATIONS, COMMANDS = "declarations", "commands"
ROOMS = (
    (DECLARATIONS, "what crosses the process boundary: protocol.py, allowlist.py"),
    ("timing", "an execution's clock, and the opt-in marks of its phases"),
    ("isolation", "namespaces, mounts, limits, the filesystem view, how the env side forks"),
    ("bridge", "the solution in a process apart from its check, and what crosses"),
    ("checks", "the generic checks every format's context uses"),
    ("benchmarks", "each benchmark's own checks, from its folder (benchmarks.py maps them)"),
    ("scheduling", "a batch into groups, zygotes, workers and executions"),
    (COMMANDS, "the protocol's commands and the benchmarks' own modules, at the top"),
)
_ROOM_ORDER = {name: i for i, (name, _) in enumerate(ROOMS)}


def room_of(module: str) -> str:
    """``bridge.guard`` → bridge; ``protocol`` → declarations; ``entry`` → commands."""
    if "." in module or module in _ROOM_ORDER:
        return module.partition(".")[0]
    return DECLARATIONS if module in ("protocol", "allowlist") else COMMANDS


def _env_import_graph() -> dict[str, dict[str, int]]:
    """Env-side module (``bridge.guard``; a room's ``__init__`` is the room) → {env-side
    module it imports: line}, every import counted as on the host: at module level,
    inside functions and under ``TYPE_CHECKING``."""
    names = {}
    for path in ENV_FILES:
        parts = list(_env_name_parts(path))
        names[path] = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    known = set(names.values())
    graph: dict[str, dict[str, int]] = {}
    for path, name in names.items():
        package = list(_env_name_parts(path)[:-1])
        edges = graph.setdefault(name, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue  # the env side imports its own modules relatively, and only so
            assert node.level - 1 <= len(package), f"{name}: line {node.lineno} leaves envside"
            anchor = package[: len(package) - node.level + 1]
            base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:
                target = f"{base}.{alias.name}" if base else alias.name
                target = target if target in known else base
                assert target in known, f"{name} (line {node.lineno}): no env-side module {target}"
                if target != name:
                    edges.setdefault(target, node.lineno)
    return graph


def test_the_env_side_has_no_import_cycle() -> None:
    graph = _env_import_graph()
    assert graph["bridge.guard"], "the import graph was not built"
    cycles = _cycles(graph)
    assert cycles == [], "import cycles:\n" + "\n".join(_one_cycle(graph, c) for c in cycles)


def test_env_side_imports_point_down_the_rooms() -> None:
    graph = _env_import_graph()
    upward = [
        f"{module} (line {line}) imports {target}: {room_of(module)} may not import from "
        f"{room_of(target)}, a later room"
        for module, edges in sorted(graph.items())
        for target, line in sorted(edges.items())
        if _ROOM_ORDER[room_of(target)] > _ROOM_ORDER[room_of(module)]
    ]
    assert upward == [], "\n".join(upward)


def test_env_side_imports_are_relative_or_of_the_standard_library() -> None:
    # an absolute import of the package would name it: ``_harness_envside`` at run time
    named = [
        f"{_env_id(path)}:{node.lineno}"
        for path in ENV_FILES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and (node.module or "").split(".")[0] in ("harness", "_harness_envside")
    ]
    assert named == []


@pytest.mark.parametrize("room", [name for name, _ in ROOMS[1:-1] if name != "benchmarks"])
def test_a_room_says_what_it_is_for_and_names_its_modules(room: str) -> None:
    init = ENVSIDE / room / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree) or ""
    assert doc.splitlines() and doc.splitlines()[0].endswith("."), "a one-line purpose first"
    assert imported_modules(tree) == [], "a room's __init__ describes it and loads nothing"
    modules = sorted(p.stem for p in (ENVSIDE / room).glob("*.py") if p.stem != "__init__")
    unnamed = [m for m in modules if not re.search(rf"^ *{m} ", doc, re.MULTILINE)]
    assert unnamed == [], f"{room}/__init__.py does not list: {', '.join(unnamed)}"
    top = ast.get_docstring(ast.parse((ENVSIDE / "__init__.py").read_text(encoding="utf-8")))
    assert f"{room}/" in (top or ""), "harness/envside/__init__.py names every room"


# -- ARCHITECTURE.md is true to the code ---------------------------------------------------

ARCHITECTURE = ROOT / "ARCHITECTURE.md"


def _sections(text: str) -> dict[str, str]:
    """The text under each heading of the page, by the heading's first `code` word."""
    found: dict[str, str] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("#"):
            words = line.split("`")
            current = words[1].strip("/").split("/")[-1] if len(words) > 1 else ""
            found.setdefault(current, "")
        else:
            found[current] = found.get(current, "") + line + "\n"
    return found


def test_the_architecture_shows_the_layers_the_test_enforces() -> None:
    rows = [
        line.split("|")[1:3]
        for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines()
        if line.startswith("| `")
    ]
    shown = tuple((name.strip().strip("`"), what.strip()) for name, what in rows)
    assert shown == LAYERS


def test_the_architecture_names_every_module_in_its_layer() -> None:
    sections = _sections(ARCHITECTURE.read_text(encoding="utf-8"))
    missing = []
    for path in sorted((ROOT / "harness").rglob("*.py")):
        parts = path.relative_to(ROOT / "harness").with_suffix("").parts
        if parts[-1] == "__init__" and parts[0] != "reports":
            continue
        if len(parts) == 1:  # cli.py, options.py, __main__.py
            where, name = "", f"{parts[0]}.py"
        else:
            where, name = parts[0], parts[-1]
        text = sections.get(where, "") if where else ARCHITECTURE.read_text(encoding="utf-8")
        if f"`{name}`" not in text:
            missing.append(str(path.relative_to(ROOT)))
    assert missing == [], "ARCHITECTURE.md does not name: " + ", ".join(missing)


# -- the size of things ----------------------------------------------------------------------

# Every module, host and env side, is held to these. The one exception is the pickle
# machine's opcode loop (admission.py): one dispatch over the opcodes it admits, read top
# to bottom like the table in pickletools, which splitting would only scatter.
MEASURED = sorted((ROOT / "harness").rglob("*.py"))
OPCODE_LOOP = ENVSIDE / "bridge" / "admission.py"
MAX_FUNCTION_LINES = 80  # from its def line to its last line
MAX_MODULE_LINES = 600


def test_functions_fit_on_a_screen() -> None:
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines"
        for path in MEASURED
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
        and (path, node.name) != (OPCODE_LOOP, "_run")
    ]
    assert long == []


def test_modules_stay_readable_in_one_sitting() -> None:
    long = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in MEASURED
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
        and path != OPCODE_LOOP
    ]
    assert long == []


def test_the_cli_stays_thin() -> None:
    # arguments → one call → printing: a command that needs more belongs in app/
    lines = len((ROOT / "harness" / "cli.py").read_text(encoding="utf-8").splitlines())
    assert lines < 350, f"harness/cli.py: {lines} lines (under 350: move the work into app/)"
