"""The env-side runner, driven exactly as the host drives it, under this interpreter.

It is stdlib-only, so these tests need no combo environment: each execution still
runs in a fresh interpreter of its own, with its own process group and time limit.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from harness.envs.build import ENVSIDE
from harness.envside import protocol
from harness.envside.isolation import sandbox

CHECK_THREE = textwrap.dedent("""
    def test_execution(solution):
        namespace = {}
        exec(solution, namespace)
        assert namespace["result"] == 3
""")


@pytest.fixture(params=["zygote", "fresh"], autouse=True)
def isolation(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test here runs in both isolation modes."""
    monkeypatch.setattr(sys.modules[__name__], "ISOLATION", request.param)
    return str(request.param)


ISOLATION = "zygote"
TRUSTED = True


@pytest.fixture(params=["trusted", "untrusted"], autouse=True)
def trust(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """...and for trusted code (references) and untrusted code (model answers, which the
    guard runs in a process apart from their checks)."""
    monkeypatch.setattr(sys.modules[__name__], "TRUSTED", request.param == "trusted")
    return str(request.param)


def run_batch(
    tmp_path: Path,
    solutions: list[str],
    context: str = CHECK_THREE,
    python: str = sys.executable,
    trusted: bool | None = None,
    **options: Any,
) -> list[dict[str, Any]]:
    return run_batch_info(tmp_path, solutions, context, python, trusted, **options)[0]


def run_batch_info(
    tmp_path: Path,
    solutions: list[str],
    context: str = CHECK_THREE,
    python: str = sys.executable,
    trusted: bool | None = None,
    **options: Any,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    requires = options.pop("requires", [])
    preload = options.pop("preload", [])
    batch = {
        "protocol": protocol.PROTOCOL,
        "options": {"jobs": 2, "timeout": 10, "isolation": ISOLATION, **options},
        "problems": {"p": {"context": context, "requires": requires, "preload": preload}},
        "executions": [
            {"problem": "p", "solution": s, "trusted": TRUSTED if trusted is None else trusted}
            for s in solutions
        ],
    }
    path = tmp_path / "batch" / "batch.json"  # its directory is hidden from executions
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(batch))
    proc = subprocess.run(
        [python, "-s", str(ENVSIDE), "run", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    # read as the host reads them: every line the env side wrote follows the protocol
    *lines, done = [protocol.read_line(line) for line in proc.stdout.splitlines()]
    assert isinstance(done, protocol.Done)
    by_seq = {
        line.seq: line.outcome.to_json() for line in lines if isinstance(line, protocol.OutcomeLine)
    }
    assert sorted(by_seq) == list(range(len(solutions)))
    return [by_seq[i] for i in range(len(solutions))], done.to_json()


@pytest.mark.parametrize(
    ("solution", "status", "exc_type"),
    [
        ("result = 1 + 2", "pass", None),
        ("result = 4", "fail", "AssertionError"),
        ("result = undefined_name", "error", "NameError"),
        ("result = (", "error", "SyntaxError"),
        ("import sys\nsys.exit(0)", "error", "SystemExit"),
        ("raise KeyboardInterrupt", "error", "KeyboardInterrupt"),
        ("raise BaseException('x')", "error", "BaseException"),
        ("import os\nos._exit(0)", "crash", None),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "crash", "SIGKILL"),
        ("import faulthandler\nfaulthandler._sigsegv()", "crash", "SIGSEGV"),
    ],
)
def test_each_way_of_ending(
    tmp_path: Path, solution: str, status: str, exc_type: str | None
) -> None:
    (outcome,) = run_batch(tmp_path, [solution])
    assert (outcome["status"], outcome["exc_type"]) == (status, exc_type)
    assert outcome["duration_s"] > 0


def test_one_bad_execution_does_not_stop_the_others(tmp_path: Path) -> None:
    outcomes = run_batch(
        tmp_path,
        ["import os\nos._exit(1)", "result = 3", "while True: pass", "result = 3"],
        timeout=2,
    )
    assert [o["status"] for o in outcomes] == ["crash", "pass", "timeout", "pass"]
    assert outcomes[2]["message"] == "exceeded the time limit of 2s"


def test_an_execution_that_kills_its_worker_is_a_crash_and_the_others_run(
    tmp_path: Path,
) -> None:
    # Trusted code runs in the execution's process, whose parent is its worker: where the
    # harness runs as root, outside the execution's pid namespace (the parent it sees is
    # pid 0, and kill(0) reaches its own process group alone); elsewhere the worker
    # itself. An untrusted solution sees no parent at all: it kills only itself.
    outcomes = run_batch(
        tmp_path,
        ["result = 3", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", "result = 3"],
        jobs=1,
    )
    assert [o["status"] for o in outcomes] == ["pass", "crash", "pass"] or (
        not TRUSTED and outcomes[1]["status"] in ("crash", "error")
    )
    if TRUSTED and sandbox.machine_root():
        assert outcomes[1]["message"] == "killed by SIGKILL"  # itself, never its worker
    elif TRUSTED:
        assert "worker" in outcomes[1]["message"] or "zygote" in outcomes[1]["message"]


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    tag = f"harness-stray-{uuid.uuid4().hex}"
    solution = textwrap.dedent(f"""
        import subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", {tag!r}])
        while True: pass
    """)
    (outcome,) = run_batch(tmp_path, [solution], timeout=1)
    assert outcome["status"] == "timeout"
    assert not processes_mentioning(tag)


def processes_mentioning(tag: str) -> list[int]:
    """Pids whose command line contains `tag` (the sandbox's pid namespace hides
    nothing from the host's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if tag.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_problem_timeout_overrides_the_default(tmp_path: Path) -> None:
    batch_solutions = ["import time\ntime.sleep(1.5)\nresult = 3"]
    (slow,) = run_batch(tmp_path, batch_solutions, timeout=1)
    assert slow["status"] == "timeout"


def test_warnings_are_recorded_once_each_with_their_issuer(tmp_path: Path) -> None:
    solution = textwrap.dedent("""
        import warnings
        for _ in range(5):
            warnings.warn("old api", DeprecationWarning)
        warnings.warn("changing", FutureWarning)
        warnings.warn("later", PendingDeprecationWarning)
        warnings.warn("not tracked", UserWarning)
        result = 3
    """)
    (outcome,) = run_batch(tmp_path, [solution])
    assert outcome["status"] == "pass"
    assert issued(outcome["warnings"]) == [
        {"category": "DeprecationWarning", "message": "old api", "module": "<solution>"},
        {"category": "FutureWarning", "message": "changing", "module": "<solution>"},
        {"category": "PendingDeprecationWarning", "message": "later", "module": "<solution>"},
    ]


def installed(modules: dict[str, str], code: str) -> str:
    """``code`` after writing ``modules`` (name → source) where it can import them.

    The sandbox shows an execution its own directory and an empty /tmp, not the test's
    temporary directory: the solution writes the stand-ins for libraries itself."""
    writes = "".join(
        f"open({name + '.py'!r}, 'w').write({src!r})\n" for name, src in modules.items()
    )
    return writes + "import sys\nsys.path.insert(0, '.')\n" + code


def test_warnings_from_a_module_name_it(tmp_path: Path) -> None:
    oldlib = "import warnings\ndef f():\n    warnings.warn('f is deprecated', DeprecationWarning, stacklevel=2)\n    return 3\n"
    solution = installed({"oldlib": oldlib}, "import oldlib\nresult = oldlib.f()")
    (outcome,) = run_batch(tmp_path, [solution])
    assert issued(outcome["warnings"]) == [
        {"category": "DeprecationWarning", "message": "f is deprecated", "module": "oldlib"}
    ]


def issued(records: list[dict[str, str]]) -> list[dict[str, str]]:
    """The warnings as their issuers gave them (where each points at: ``pointed``)."""
    return [{k: w[k] for k in ("category", "message", "module")} for w in records]


def pointed(records: list[dict[str, str]]) -> dict[str, str]:
    """message → the code the warning points at, as recorded ("" not recorded)."""
    return {w["message"]: w["origin"] for w in records}


def test_warnings_say_whose_code_they_point_at(tmp_path: Path) -> None:
    """A library's deprecation points at its caller (its stack level): the solution's
    code when the solution calls it, the other library's when that library calls it
    for the solution. Only the first is the solution's own."""
    oldlib = (
        "import warnings\n"
        "def f(what):\n"
        "    warnings.warn(what + ' is deprecated', DeprecationWarning, stacklevel=2)\n"
        "    return 3\n"
    )
    wrapper = "import oldlib\ndef g():\n    return oldlib.f('inside')\n"
    solution = installed(
        {"oldlib": oldlib, "wrapper": wrapper},
        "import oldlib, wrapper\nresult = oldlib.f('called') + wrapper.g() - 3",
    )
    (outcome,) = run_batch(tmp_path, [solution])
    assert outcome["status"] == "pass"
    assert {w["module"] for w in outcome["warnings"]} == {"oldlib"}
    # (an untrusted solution's process records where each points, and the guard passes
    # it on: guard.py, its _warnings)
    found = pointed(outcome["warnings"])
    assert found == {"called is deprecated": "<solution>", "inside is deprecated": "wrapper"}


def test_import_time_warnings_belong_to_the_environment(tmp_path: Path) -> None:
    noisy = "import warnings\nwarnings.warn('noisy import', DeprecationWarning)\n"
    solution = installed({"noisy": noisy}, "import noisy\nresult = 3")
    (outcome,) = run_batch(tmp_path, [solution])
    assert outcome["status"] == "pass"
    assert outcome["warnings"] == []


def test_missing_module_means_skipped(tmp_path: Path) -> None:
    (outcome,) = run_batch(tmp_path, ["result = 3"], requires=["json", "no_such_module_here"])
    assert outcome["status"] == "skipped"
    assert outcome["message"] == "needs no_such_module_here, not installed in this environment"


def test_output_is_capped_keeping_head_and_tail(tmp_path: Path) -> None:
    solution = "print('HEAD'); print('x' * 1_000_000); print('TAIL'); result = 4"
    (outcome,) = run_batch(tmp_path, [solution], output_limit=1000)
    assert outcome["status"] == "fail"
    assert outcome["output"].startswith("HEAD")
    assert outcome["output"].rstrip().endswith("TAIL")
    assert "bytes not kept" in outcome["output"]
    assert len(outcome["output"]) < 1100


def test_passing_output_is_not_kept(tmp_path: Path) -> None:
    (outcome,) = run_batch(tmp_path, ["print('hello'); result = 3"])
    assert outcome["status"] == "pass"
    assert outcome["output"] == ""


def test_each_execution_gets_its_own_working_directory(tmp_path: Path) -> None:
    solution = textwrap.dedent("""
        import os
        assert os.listdir(".") == [], os.listdir(".")
        open("left-behind.txt", "w").write("x")
        result = 3
    """)
    outcomes = run_batch(tmp_path, [solution, solution], jobs=1)
    assert [o["status"] for o in outcomes] == ["pass", "pass"]


def test_tmp_is_writable_empty_and_private(tmp_path: Path) -> None:
    """Programs write to /tmp by name (BigCodeBench's tests do): they get an empty tmpfs
    of their own, beside their working directory; nothing reaches the machine's /tmp."""
    name = f"harness-private-{uuid.uuid4().hex}"
    solution = textwrap.dedent(f"""
        import os, sys, tempfile
        seen = sorted(os.listdir("/tmp"))
        open("/tmp/{name}", "w").write("x")
        with tempfile.NamedTemporaryFile(dir="/tmp") as fh:
            fh.write(b"y")
        open("here.txt", "w").write("z")  # the working directory still works
        assert open("/tmp/{name}").read() + open("here.txt").read() == "xz"
        # nothing but the way to what it needs: its directory, its environment
        needed = [os.getcwd(), sys.prefix, sys.base_prefix]
        assert all(any((n + "/").startswith("/tmp/" + e + "/") for n in needed) for e in seen), seen
        result = 3
    """)
    (outcome,) = run_batch(tmp_path, [solution])
    assert outcome["status"] == "pass", outcome["message"]
    assert not Path(f"/tmp/{name}").exists()


def test_memory_cap_stops_a_runaway_allocation(tmp_path: Path) -> None:
    (outcome,) = run_batch(tmp_path, ["x = bytearray(2 * 1024**3)\nresult = 3"], memory_mb=512)
    assert outcome["status"] == "error"
    assert outcome["exc_type"] == "MemoryError"


def test_test_string_runs_where_the_context_defines_it(tmp_path: Path) -> None:
    context = CHECK_THREE + "\ndef test_string(solution):\n    assert 'for' not in solution\n"
    outcomes = run_batch(tmp_path, ["result = 3", "for _ in []: pass\nresult = 3"], context=context)
    assert [o["status"] for o in outcomes] == ["pass", "fail"]


def test_hash_seed_is_fixed(tmp_path: Path) -> None:
    solution = "import os\nresult = 3 if os.environ.get('PYTHONHASHSEED') == '0' else 0"
    (outcome,) = run_batch(tmp_path, [solution])
    assert outcome["status"] == "pass"


# -- isolation: nothing one execution does reaches the next -----------------------------

PASS_CONTEXT = "def test_execution(solution):\n    exec(solution, {})\n"

LEAKS = [
    ("cwd", "import os; os.chdir('/')", "import os; assert os.getcwd() != '/'"),
    (
        "environment variable",
        "import os; os.environ['LEAKED'] = '1'",
        "import os; assert 'LEAKED' not in os.environ",
    ),
    (
        "sys.modules",
        "import sys, types; sys.modules['json'] = types.ModuleType('json')",
        "import json; assert hasattr(json, 'dumps')",
    ),
    (
        "monkeypatch",
        "import json; json.dumps = lambda *a, **k: 'patched'",
        "import json; assert json.dumps(1) == '1'",
    ),
    ("builtins", "import builtins; builtins.len = lambda x: 0", "assert len([1]) == 1"),
    (
        "sys.path",
        "import sys; sys.path.insert(0, '/leaked')",
        "import sys; assert '/leaked' not in sys.path",
    ),
    (
        "random seed",
        "import random; random.seed(7)",
        "import random; assert random.random() != random.Random(7).random()",
    ),
    (
        "warnings filters",
        "import warnings; warnings.simplefilter('error')",
        "import warnings; warnings.warn('x')",
    ),
    (
        "recursion limit",
        "import sys; sys.setrecursionlimit(50)",
        "import sys; assert sys.getrecursionlimit() >= 1000",
    ),
    (
        "files in the working directory",
        "open('left.txt', 'w').write('x')",
        "import os; assert not os.path.exists('left.txt')",
    ),
    (
        "a file in /tmp",  # each execution has an empty /tmp of its own
        "open('/tmp/harness-left.txt', 'w').write('x')",
        "import os; assert not os.path.exists('/tmp/harness-left.txt')",
    ),
    (
        "a thread left running",
        "import threading, time; threading.Thread(target=time.sleep, args=(60,)).start()",
        "import threading; assert threading.active_count() == 1",
    ),
]


@pytest.mark.parametrize(("kind", "change", "check"), LEAKS, ids=[leak[0] for leak in LEAKS])
def test_state_does_not_leak(tmp_path: Path, kind: str, change: str, check: str) -> None:
    outcomes = run_batch(tmp_path, [change, check], context=PASS_CONTEXT, jobs=1)
    assert [o["status"] for o in outcomes] == ["pass", "pass"], outcomes


# The sandbox makes everything outside an execution's own directory read-only, so
# an execution reports what it saw through its outcome: a failed assertion's message.
REPORT_CONTEXT = (
    "def test_execution(solution):\n"
    "    namespace = {}\n"
    "    exec(solution, namespace)\n"
    "    raise AssertionError(repr(namespace['seen']))\n"
)


def reported(outcomes: list[dict[str, Any]]) -> list[str]:
    assert [o["status"] for o in outcomes] == ["fail"] * len(outcomes), outcomes
    return [o["message"] for o in outcomes]


def test_forked_executions_draw_different_random_numbers(tmp_path: Path) -> None:
    draw = "import random; seen = random.random()"
    outcomes = run_batch(tmp_path, [draw] * 4, context=REPORT_CONTEXT, jobs=1)
    assert len(set(reported(outcomes))) == 4


def test_zygote_preloads_what_problems_import(tmp_path: Path) -> None:
    context = "import json\nimport xml.dom.minidom\nfrom email import message\n" + CHECK_THREE
    outcomes, info = run_batch_info(
        tmp_path, ["result = 3", "import csv\nresult = 3"], context=context, trusted=False
    )
    assert [o["status"] for o in outcomes] == ["pass", "pass"]
    assert info["isolation"] == ISOLATION
    if ISOLATION == "zygote":
        # submodules named by from-imports are loaded too; modules named only by untrusted
        # solutions are not (a model's import must not run in the shared parent)
        (zygote,) = info["zygotes"]
        assert zygote["group"] == []
        assert zygote["preloaded"] == ["xml.dom.minidom", "email", "email.message"]
    else:
        assert info["zygotes"] == []
        assert info["preloaded"] == []


def test_zygote_preloads_what_the_reference_imports_for_answers_alone(tmp_path: Path) -> None:
    # a run whose references ran while its admission was measured sends the answers
    # alone: the zygote (and the template their processes fork from) still imports what
    # the problem's reference names, or each answer would import its libraries itself
    answer = "import csv, sys\nresult = 3 if 'csv' in sys.modules else 0"
    outcomes, info = run_batch_info(
        tmp_path, [answer], trusted=False, preload=["csv", "xml.dom.minidom"]
    )
    assert [o["status"] for o in outcomes] == ["pass"]
    if ISOLATION == "zygote":
        (zygote,) = info["zygotes"]
        assert {"csv", "xml.dom.minidom"} <= set(zygote["preloaded"])
    else:
        assert info["preloaded"] == []


def test_deprecations_outside_the_hierarchy_are_recorded(tmp_path: Path) -> None:
    solution = textwrap.dedent("""
        import warnings
        class VisibleDeprecationWarning(UserWarning):
            pass
        warnings.warn("ragged", VisibleDeprecationWarning)
        result = 3
    """)
    (outcome,) = run_batch(tmp_path, [solution])
    assert [w["message"] for w in outcome["warnings"]] == ["ragged"]


def test_warnings_from_deprecation_decorators_name_the_decorated_module(tmp_path: Path) -> None:
    deprecation = (
        "import functools, warnings\n"
        "def deprecated(func):\n"
        "    @functools.wraps(func)\n"
        "    def wrapper(*args, **kwargs):\n"
        "        warnings.warn(func.__name__ + ' is deprecated', FutureWarning, stacklevel=2)\n"
        "        return func(*args, **kwargs)\n"
        "    return wrapper\n"
    )
    newlib = "from deprecation import deprecated\n@deprecated\ndef old():\n    return 3\n"
    solution = installed(
        {"deprecation": deprecation, "newlib": newlib}, "import newlib\nresult = newlib.old()"
    )
    (outcome,) = run_batch(tmp_path, [solution])
    assert issued(outcome["warnings"]) == [
        {"category": "FutureWarning", "message": "old is deprecated", "module": "newlib"}
    ]


# -- the guard: one solution process per execution, however often the check runs it ----

# The check runs the solution on three inputs, as DS-1000's checks do, and fails with
# what it saw so that the test can read it.
THREE_RUNS = textwrap.dedent("""
    import os
    def test_execution(solution):
        seen = []
        for i in range(3):
            env = {"x": i, "shared": [i], "alias": None}
            env["alias"] = env["shared"]
            HELPER
            exec(solution, env)
            assert env["result"] == (i + 1, True), (i, env["result"])
            # (a pid is a number in its namespace: each process's own tells them apart)
            here = (os.getpid(), os.readlink("/proc/self/ns/pid"))
            seen.append((env["pid"][0], env["pid"] != here))
        raise AssertionError(repr(seen))
""")
ECHO = (
    "import os\n"
    "alias.append('touched')\n"
    "result = (x + 1, shared[-1] == 'touched')\n"
    "pid = (os.getpid(), os.readlink('/proc/self/ns/pid'))\n"
)


def pids_seen(outcome: dict[str, Any]) -> list[tuple[int, bool]]:
    assert outcome["status"] == "fail", outcome
    seen: list[tuple[int, bool]] = ast.literal_eval(outcome["message"])
    assert all(apart for _, apart in seen)  # never in the checker's own process
    return seen


def test_the_solutions_process_serves_each_run_of_the_check(tmp_path: Path) -> None:
    (outcome,) = run_batch(
        tmp_path, [ECHO], context=THREE_RUNS.replace("HELPER", "pass"), trusted=False
    )
    # one process, which started from the checker's state each time: its input, and
    # values that share an object still sharing it
    assert len({pid for pid, _ in pids_seen(outcome)}) == 1


# The solution sees only its own execution's processes, so the check looks it up: the
# process one pid namespace below the checker's whose pid there and start time are the
# ones the solution reports (other executions on the machine have a pid 2 too), and the
# command line of its parent.
WHO_STARTED_IT = textwrap.dedent("""
    import os
    def field(pid, name):
        for line in open('/proc/%s/status' % pid):
            if line.startswith(name + ':'):
                return line.split()[1:]
    def start(pid):
        return open('/proc/%s/stat' % pid).read().rsplit(')', 1)[1].split()[19]
    def test_execution(solution):
        env = {}
        exec(solution, env)  # the solution's process serves the execution until it ends
        depth = len(field('self', 'NSpid'))
        for pid in filter(str.isdigit, os.listdir('/proc')):
            try:
                nspid = field(pid, 'NSpid')
            except OSError:
                continue
            pid_there, started = env['result']
            if len(nspid) == depth + 1 and nspid[-1] == str(pid_there) and started == start(pid):
                parent = field(pid, 'PPid')[0]
                raise AssertionError(open('/proc/%s/cmdline' % parent, 'rb').read().split(b'\\0')[3])
        raise AssertionError('not found')
""")


def test_the_solutions_process_never_comes_from_its_checker(tmp_path: Path, isolation: str) -> None:
    # zygote mode: the placer, a fork of the template (a new interpreter that imported
    # the group's libraries and never held the batch), makes its pid namespace, which is
    # not below the checker's where the harness runs as root (the checker, in its
    # worker's, cannot even see it); fresh mode: the checker started a new interpreter
    # (``solution``), which forked it into a pid namespace of its own: it lacks the
    # checker's memory
    solution = (
        "import os\n"
        "started = open('/proc/self/stat').read().rsplit(')', 1)[1].split()[19]\n"
        "result = (os.getpid(), started)\n"
    )
    (outcome,) = run_batch(tmp_path, [solution], context=WHO_STARTED_IT, trusted=False)
    placer = "not found" if sandbox.machine_root() else repr(b"template")
    parent = {"zygote": placer, "fresh": repr(b"solution")}[isolation]
    assert (outcome["status"], outcome["message"]) == ("fail", parent)


def test_the_solution_sees_no_process_but_its_executions(tmp_path: Path) -> None:
    # its /proc is its pid namespace's: the checker and the machine are not in it
    solution = "import os\nresult = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
    context = "def test_execution(solution):\n    env = {}\n    exec(solution, env)\n    raise AssertionError(env['result'])\n"
    (outcome,) = run_batch(tmp_path, [solution], context=context, trusted=False)
    assert outcome["status"] == "fail", outcome
    seen = ast.literal_eval(outcome["message"])
    assert seen and all(pid < 10 for pid in seen), seen


def test_functions_the_check_defined_travel_as_code(tmp_path: Path) -> None:
    # pickle cannot name them outside the checker: their code is sent, bound to the
    # solution's globals (``os`` here, which the lambda uses, is the solution's import)
    context = THREE_RUNS.replace("HELPER", "env['helper'] = lambda: os.sep")
    (outcome,) = run_batch(tmp_path, [ECHO + "helper()\n"], context=context, trusted=False)
    assert len({pid for pid, _ in pids_seen(outcome)}) == 1


def test_values_that_cannot_travel_are_a_guard_error(tmp_path: Path) -> None:
    # An object of a class the check defined cannot be rebuilt in the solution's process,
    # and the solution never runs where the check's memory is: an error that says why.
    context = THREE_RUNS.replace(
        "HELPER",
        "env['box'] = type('Box', (), {})()\n        env['box'].__class__.__module__ = 'nowhere'",
    )
    (outcome,) = run_batch(tmp_path, [ECHO], context=context, trusted=False)
    assert (outcome["status"], outcome["exc_type"]) == ("error", "GuardError"), outcome
    assert "cannot be sent" in outcome["message"]


@pytest.mark.parametrize(
    ("second_run", "status", "exc_type"),
    [
        ("import os\nos._exit(3)", "crash", None),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "crash", "SIGKILL"),
        ("raise ValueError('second')", "error", "ValueError"),
        ("result = 4", "fail", "AssertionError"),
    ],
)
def test_a_later_run_ends_the_execution_as_a_first_run_would(
    tmp_path: Path, second_run: str, status: str, exc_type: str | None
) -> None:
    context = textwrap.dedent("""
        def test_execution(solution):
            for i in range(3):
                env = {"i": i}
                exec(solution, env)
                assert env["result"] == 3
    """)
    solution = "result = 3\nif i == 1:\n" + textwrap.indent(second_run, "    ")
    (outcome,) = run_batch(tmp_path, [solution], context=context, trusted=False)
    assert (outcome["status"], outcome["exc_type"]) == (status, exc_type), outcome
