"""One run's results directory: where each file lives, and its typed readers and writers.

``results/<run-id>/`` holds::

    run.json                 RunManifest: what the run was started with, and when it finished
    <combo>.jsonl            one Outcome per line (harness.core.results), appended as they arrive
    envs/<combo>.json        the combo's EnvInfo; .lock its uv lock; .executor.json its executor
    answers/<model>.jsonl    the model answers the run executed
    analysis.json            attribution and bisection Findings (--bisect)
    validity.json            each reference's validity range per library (harness.analysis.validity)
    deprecations.json        the deprecated or removed APIs each model reaches for
    releases.json            ReleaseNews (harness releases --write)
    summary.json, summary.md, report.html, junit.xml, junit/, exports/   the reports

Every file is read here, once, into frozen values; a file this harness cannot read is a
:class:`~harness.core.errors.RunFileError` of one line naming the file and the key. Nothing
else opens these files by name.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from harness.core.errors import RunFileError, UsageError
from harness.core.findings import Finding
from harness.core.jsonfields import Fields
from harness.core.problem import MODEL_PREFIX, Solution
from harness.core.results import (
    SCHEMA_VERSION,
    Outcome,
    read_outcomes,
    write_json,
)
from harness.envs.build import EnvInfo
from harness.execute.runner import DEFAULT_MEMORY_MB, RunOptions
from harness.matrix.releases import ReleaseNews

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

    from harness.core.results import Outcome


@dataclass(frozen=True)
class RunRequest:
    """What ``harness run`` was asked to do, recorded in run.json so ``--resume`` can redo it.

    Field names are the options' names (``--no-reference`` is ``no_reference``); how many
    executions run at once, where the results and envs live, and the history are not part
    of it: a resumed run takes those from its own command line.
    """

    matrix: str = "matrix.toml"
    combos: tuple[str, ...] = ()  # as given: comma-separated ids or globs
    keyword: str | None = None
    tag: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()  # as given; empty means problems/
    answers: tuple[str, ...] = ()  # [NAME=]PATH
    no_reference: bool = False
    idioms: bool = True  # our problems' old idioms run beside the references
    library: tuple[str, ...] = ()
    problem_id: tuple[str, ...] = ()
    limit: int | None = None
    shard: str | None = None  # "I/N"
    timeout: float | None = None  # None: the matrix's
    memory_mb: int = DEFAULT_MEMORY_MB  # 0: no cap
    isolation: str = "zygote"
    fresh_for: tuple[str, ...] = ()
    repeat: int = 1
    sandbox: bool = True
    # model answers may run where the sandbox is refused or off (untrusted code, unsandboxed)
    allow_unsandboxed_answers: bool = False
    guard: bool = True
    bisect: bool = False
    compare_upstream: bool = False  # set upstream's verdicts beside ours (agreement.md)
    guard_allowlist: str | None = None
    guard_record: bool = False
    measured_admission: bool = True  # --no-measured-admission: the shipped allowlist only
    # what [nightly] declares fills in the combos, problems and answers not given
    nightly: bool = False
    shard_durations: str | None = None  # a durations file: shards balanced by time
    own_envs: bool = False  # each problem only in the environment it brings

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(asdict(self).items())}

    @classmethod
    def from_dict(
        cls,
        data: object,
        file: str | Path = "run.json",
        *,
        where: str = "",
    ) -> RunRequest:
        """The request ``data`` records; a key it lacks (an older run's) takes its default."""
        given = Fields(data, str(file), where)
        b = cls()
        return cls(
            matrix=given.text("matrix", b.matrix),
            combos=given.texts("combos", b.combos),
            keyword=given.optional_text("keyword", b.keyword),
            tag=given.texts("tag", b.tag),
            problems=given.texts("problems", b.problems),
            answers=given.texts("answers", b.answers),
            no_reference=given.flag("no_reference", b.no_reference),
            idioms=given.flag("idioms", b.idioms),
            library=given.texts("library", b.library),
            problem_id=given.texts("problem_id", b.problem_id),
            limit=given.optional_integer("limit", b.limit),
            shard=given.optional_text("shard", b.shard),
            timeout=given.optional_number("timeout", b.timeout),
            memory_mb=given.integer("memory_mb", b.memory_mb),
            isolation=given.text("isolation", b.isolation),
            fresh_for=given.texts("fresh_for", b.fresh_for),
            repeat=given.integer("repeat", b.repeat),
            sandbox=given.flag("sandbox", b.sandbox),
            allow_unsandboxed_answers=given.flag(
                "allow_unsandboxed_answers", b.allow_unsandboxed_answers
            ),
            guard=given.flag("guard", b.guard),
            bisect=given.flag("bisect", b.bisect),
            compare_upstream=given.flag("compare_upstream", b.compare_upstream),
            guard_allowlist=given.optional_text("guard_allowlist", b.guard_allowlist),
            guard_record=given.flag("guard_record", b.guard_record),
            measured_admission=given.flag("measured_admission", b.measured_admission),
            nightly=given.flag("nightly", b.nightly),
            shard_durations=given.optional_text("shard_durations", b.shard_durations),
            own_envs=given.flag("own_envs", b.own_envs),
        )


@dataclass(frozen=True)
class RunInputs:
    """The inputs a run was given: problem locations and answer files, as on the command line."""

    problems: tuple[str, ...] = ()  # problem locations (problems/ when none were given)
    answers: tuple[str, ...] = ()
    shard: str | None = None  # dropped when the shards' results are merged
    command: RunRequest | None = None  # None in runs that cannot be resumed

    def to_dict(self) -> dict[str, Any]:
        return {
            "problems": list(self.problems),
            "answers": list(self.answers),
            "shard": self.shard,
            "command": self.command.to_dict() if self.command else None,
        }

    @classmethod
    def from_dict(cls, data: object, file: str, where: str = "inputs") -> RunInputs:
        given = Fields(data, file, where)
        command = given.table("command")
        return cls(
            problems=given.texts("problems"),
            answers=given.texts("answers"),
            shard=given.optional_text("shard"),
            command=None
            if command is None
            else RunRequest.from_dict(command.data, file, where=command.where),
        )


@dataclass(frozen=True)
class RecordedOptions:
    """How the run's executions ran: what trials of the run (bisection, repair
    verification) replay (``harness.execute.options.replay``)."""

    jobs: int
    timeout: float | None
    memory_mb: int | None
    isolation: str = "zygote"
    fresh_for: tuple[str, ...] = ()
    sandbox: bool = True
    # model answers were allowed to run where the sandbox was refused or off
    unsandboxed_answers: bool = False
    guard: bool = True
    measured_admission: bool = True
    hide: tuple[str, ...] = ()  # the paths no execution could read
    allowlist_extra: str = ""  # the user's own allowlist (--guard-allowlist), as read

    @classmethod
    def of(cls, options: RunOptions) -> RecordedOptions:
        return cls(
            jobs=options.jobs,
            timeout=options.timeout,
            memory_mb=options.memory_mb,
            isolation=options.isolation,
            fresh_for=options.fresh_for,
            sandbox=options.sandbox,
            unsandboxed_answers=options.unsandboxed_answers,
            guard=options.guard,
            measured_admission=options.measured_admission,
            hide=options.hide,
            allowlist_extra=options.allowlist_extra,
        )

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_fields(cls, given: Fields) -> RecordedOptions:
        """The options ``given`` records; a key an older run lacks takes its default."""
        b = cls(jobs=1, timeout=None, memory_mb=None)
        return cls(
            jobs=given.integer("jobs", 1),
            timeout=given.optional_number("timeout"),
            memory_mb=given.optional_integer("memory_mb"),
            isolation=given.text("isolation", b.isolation),
            fresh_for=given.texts("fresh_for", b.fresh_for),
            sandbox=given.flag("sandbox", b.sandbox),
            unsandboxed_answers=given.flag("unsandboxed_answers", b.unsandboxed_answers),
            guard=given.flag("guard", b.guard),
            measured_admission=given.flag("measured_admission", b.measured_admission),
            hide=given.texts("hide", b.hide),
            allowlist_extra=given.text("allowlist_extra", b.allowlist_extra),
        )


@dataclass(frozen=True)
class RunManifest:
    """``run.json``: the run's identity, combos and inputs, and whether it finished.

    Manifests written by hand (or by older versions) may lack any key but ``run_id``;
    what they lack takes the defaults below.
    """

    run_id: str
    schema: int = SCHEMA_VERSION
    started: str | None = None  # ISO timestamps
    finished: str | None = None  # None while running: a run without it can be resumed
    matrix: str | None = None  # the matrix file
    baseline: str | None = None
    combos: tuple[str, ...] = ()  # in the order they were started
    inputs: RunInputs = field(default_factory=RunInputs)
    options: RecordedOptions | None = None

    @property
    def resumable(self) -> bool:
        """Unfinished, and it says how it was started."""
        return not self.finished and self.inputs.command is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "run_id": self.run_id,
            "started": self.started,
            "finished": self.finished,
            "matrix": self.matrix,
            "baseline": self.baseline,
            "combos": list(self.combos),
            "inputs": self.inputs.to_dict(),
            "options": self.options.to_dict() if self.options else None,
        }

    @classmethod
    def from_dict(cls, data: object, file: str | Path = "run.json") -> RunManifest:
        shown = str(file)
        given = Fields(data, shown)
        if "run_id" not in given.data:
            raise RunFileError(shown, "run_id", "missing")
        inputs = given.table("inputs")
        options = given.table("options")
        return cls(
            run_id=given.text("run_id", ""),
            schema=given.integer("schema", SCHEMA_VERSION),
            started=given.optional_text("started"),
            finished=given.optional_text("finished"),
            matrix=given.optional_text("matrix"),
            baseline=given.optional_text("baseline"),
            combos=given.texts("combos"),
            inputs=RunInputs() if inputs is None else RunInputs.from_dict(inputs.data, shown),
            options=None if options is None else RecordedOptions.from_fields(options),
        )


def _read_json(path: Path) -> object:
    """The JSON value in ``path``, or None when there is no such file."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise RunFileError(str(path), None, f"cannot read: {exc}") from None
    except ValueError as exc:
        raise RunFileError(str(path), None, f"invalid JSON: {exc}") from None


@dataclass(frozen=True)
class RunDir:
    """The layout of one run's results directory, and the readers and writers of its files."""

    root: Path

    @property
    def run_id(self) -> str:
        return self.root.name

    # -- where each file lives ---------------------------------------------------------

    def outcomes(self, combo: str) -> Path:
        return self.root / f"{combo}.jsonl"

    def lock(self, combo: str) -> Path:
        return self.root / "envs" / f"{combo}.lock"

    def env_info(self, combo: str) -> Path:
        return self.root / "envs" / f"{combo}.json"

    def executor_info(self, combo: str) -> Path:
        return self.root / "envs" / f"{combo}.executor.json"

    def expected(self) -> Path:
        """The expected outputs derived for the run (CIBench's, ``execute/expected.py``)."""
        return self.root / "expected.json"

    def admission(self, combo: str) -> Path:
        """The allowlist lines the combo's checker admitted beyond the shipped list,
        measured on the references there (``harness/execute/admission.py``)."""
        return self.root / "envs" / f"{combo}.admitted.txt"

    def junit(self, combo: str) -> Path:
        return self.root / "junit" / f"{combo}.xml"

    @property
    def merged_junit(self) -> Path:
        return self.root / "junit.xml"

    @property
    def summary_json(self) -> Path:
        return self.root / "summary.json"

    @property
    def summary_md(self) -> Path:
        return self.root / "summary.md"

    @property
    def analysis(self) -> Path:
        """Attribution and bisection findings for drifted problems (``--bisect``)."""
        return self.root / "analysis.json"

    @property
    def releases(self) -> Path:
        return self.root / "releases.json"

    @property
    def validity_json(self) -> Path:
        return self.root / "validity.json"

    @property
    def report_html(self) -> Path:
        return self.root / "report.html"

    @property
    def answers_dir(self) -> Path:
        """The model answers the run executed, one JSONL file per model."""
        return self.root / "answers"

    def exports(self, combo: str) -> Path:
        return self.root / "exports" / combo

    @property
    def manifest(self) -> Path:
        return self.root / "run.json"

    @property
    def reach_json(self) -> Path:
        """The ranges ``harness reach --out`` wrote into the run (``analysis.ranges.Reach``)."""
        return self.root / "reach.json"

    @property
    def reach_md(self) -> Path:
        return self.root / "reach.md"

    @property
    def knowledge_json(self) -> Path:
        """What each model knows, dated from where its answers work (``analysis.knowledge``)."""
        return self.root / "knowledge.json"

    @property
    def deprecations_json(self) -> Path:
        """The deprecated or removed APIs each model reaches for (``analysis.deprecations``)."""
        return self.root / "deprecations.json"

    @property
    def agreement_json(self) -> Path:
        """Our verdicts against upstream's (``--compare-upstream``: ``analysis.agreement``)."""
        return self.root / "agreement.json"

    @property
    def agreement_md(self) -> Path:
        return self.root / "agreement.md"

    @property
    def repairs(self) -> Path:
        """What ``harness repair`` wrote: the plan, diffs, the verification table, the
        repaired datasets, and the throwaway runs of its verification (``runs/``)."""
        return self.root / "repairs"

    @property
    def verification_json(self) -> Path:
        return self.repairs / "verification.json"

    @property
    def verification_md(self) -> Path:
        return self.repairs / "verification.md"

    def timeline(self, suffix: str) -> Path:
        """The run's timeline (``.json``) and its curves (``.png``, ``.svg``)."""
        return self.root / f"timeline{suffix}"

    # -- outcomes ----------------------------------------------------------------------

    def combos(self) -> list[str]:
        """Combos with an outcomes file, in the order they were started."""
        files = sorted(self.root.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime_ns, p.name))
        return [p.stem for p in files]

    def read(self, combo: str) -> list[Outcome]:
        return read_outcomes(self.outcomes(combo))[0]

    def read_all(self) -> list[Outcome]:
        return [o for combo in self.combos() for o in self.read(combo)]

    # -- run.json ----------------------------------------------------------------------

    def read_manifest(self) -> RunManifest | None:
        """The run's manifest; None when it has none (not a run directory)."""
        data = _read_json(self.manifest)
        return None if data is None else RunManifest.from_dict(data, self.manifest)

    def write_manifest(self, manifest: RunManifest) -> None:
        write_json(self.manifest, manifest.to_dict())

    def known_combos(self, manifest: RunManifest | None = None) -> list[str]:
        """The manifest's combos in its order, then any other combo with outcomes."""
        listed = manifest.combos if manifest else ()
        return list(dict.fromkeys([*listed, *self.combos()]))

    # -- environments ------------------------------------------------------------------

    def read_env(self, combo: str) -> EnvInfo | None:
        data = _read_json(self.env_info(combo))
        if data is None:
            return None
        if not isinstance(data, dict):
            raise RunFileError(str(self.env_info(combo)), None, "expected an object")
        try:
            return EnvInfo.from_dict(data)
        except TypeError as exc:
            raise RunFileError(str(self.env_info(combo)), None, str(exc)) from None

    def read_envs(self, combos: Iterable[str]) -> dict[str, EnvInfo]:
        """The recorded environment of each of ``combos`` that has one."""
        envs = {}
        for combo in combos:
            env = self.read_env(combo)
            if env is not None:
                envs[combo] = env
        return envs

    def write_env(self, combo: str, env: EnvInfo) -> None:
        write_json(self.env_info(combo), env.to_dict())

    def read_lock(self, combo: str) -> str:
        """The uv lock the combo's env was built from; "" when none was kept."""
        path = self.lock(combo)
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    def write_lock(self, combo: str, lock: str) -> None:
        path = self.lock(combo)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(lock, encoding="utf-8")

    def write_executor(self, combo: str, executor: Mapping[str, Any]) -> None:
        write_json(self.executor_info(combo), dict(executor))

    def read_sandbox(self, combos: Iterable[str]) -> dict[str, str]:
        """Each of ``combos``' sandbox as its executor recorded it ("on", or why not), for
        those that recorded one."""
        found = {}
        for combo in combos:
            path = self.executor_info(combo)
            data = _read_json(path)
            if data is not None:
                found[combo] = Fields(data, str(path)).text("sandbox", "on")
        return found

    def write_admission(self, combo: str, text: str) -> None:
        path = self.admission(combo)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    # -- model answers -----------------------------------------------------------------

    def read_answers(self) -> list[Solution]:
        """The model answers the run executed, as it saved them."""
        solutions = []
        for path in sorted(self.answers_dir.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                solutions.append(Solution(row["problem_id"], MODEL_PREFIX + path.stem, row["code"]))
        return solutions

    def write_answers(self, solutions: Iterable[Solution]) -> None:
        """Keep the model answers among ``solutions``, one file per model."""
        by_model: dict[str, list[str]] = {}
        for s in solutions:
            if s.source.startswith(MODEL_PREFIX):
                line = json.dumps({"problem_id": s.problem_id, "code": s.code})
                by_model.setdefault(s.source.removeprefix(MODEL_PREFIX), []).append(line)
        for model, lines in by_model.items():
            path = self.answers_dir / f"{model}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    # -- analysis, releases, summary ---------------------------------------------------

    def read_analysis(self) -> dict[tuple[str, str], Finding]:
        """Findings by (problem, source); empty when the run was not bisected."""
        data = _read_json(self.analysis)
        if data is None:
            return {}
        if not isinstance(data, list):
            raise RunFileError(str(self.analysis), None, "expected a list of findings")
        found = {}
        for i, item in enumerate(data):
            try:
                finding = Finding.from_dict(item)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise RunFileError(str(self.analysis), f"[{i}]", f"not a finding: {exc}") from None
            found[(finding.problem_id, finding.source)] = finding
        return found

    def write_analysis(self, findings: Sequence[Finding]) -> None:
        write_json(self.analysis, [f.to_dict() for f in findings])

    def read_releases(self, path: Path | None = None) -> ReleaseNews | None:
        """``releases.json`` (this run's, or the one at ``path``); None when there is none."""
        where = path or self.releases
        data = _read_json(where)
        return None if data is None else ReleaseNews.from_dict(data, where)

    def read_summary(self) -> dict[str, Any] | None:
        """``summary.json`` as published (the shape GitHub's glue reads); None before any."""
        data = _read_json(self.summary_json)
        if data is None:
            return None
        if not isinstance(data, dict):
            raise RunFileError(str(self.summary_json), None, "expected an object")
        return data


def resume(results: Path, run_id: str | None) -> tuple[str, RunRequest]:
    """The run to resume under ``results`` (``run_id``, or else the unfinished one started
    last) and the request it was started with."""
    if run_id:
        run = RunDir(results / run_id)
        if not run.manifest.is_file():
            raise UsageError(f"--resume: no run {run_id!r} in {results}")
        manifest = run.read_manifest()
    else:
        unfinished = []
        for path in results.glob("*/run.json"):
            # a manifest that cannot be read is no candidate: it says nothing to resume
            with contextlib.suppress(RunFileError, OSError):
                found = RunDir(path.parent).read_manifest()
                if found is not None and found.resumable:
                    unfinished.append((found.started or "", path.parent.name, found))
        if not unfinished:
            raise UsageError(f"--resume: every run in {results} has finished; nothing to resume")
        _, run_id, manifest = max(unfinished, key=lambda u: u[:2])
        run = RunDir(results / run_id)
    command = manifest.inputs.command if manifest else None
    if command is None:
        raise UsageError(f"--resume: {run.manifest} does not say how the run was started")
    return run_id, command
