"""``harness repair``: propose, verify and write the repairs of a finished run.

The stages, each taking the previous one's result: the run's problems (as its manifest
records them) → :func:`harness.labs.repair.plan.plan` → :func:`harness.labs.repair.verify.verify`
(or nothing, with ``--no-verify``) → :func:`harness.labs.repair.outputs.write` → the run's
reports, rewritten so that summary.md and report.html show the Repairs section.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness import reports
from harness.core import defaults
from harness.core.errors import UsageError
from harness.execute import options as execution_options
from harness.execute.rundir import RunDir
from harness.labs.repair import outputs
from harness.labs.repair.plan import RepairPlan, plan
from harness.labs.repair.verify import Lab, unverified, verify
from harness.matrix import spec
from harness.problems import sets as problemsets
from harness.reports import repairs as repairs_report

if TYPE_CHECKING:
    from pathlib import Path

    from harness.analysis.repairs import RepairTable
    from harness.execute.progress import Reporter


@dataclass(frozen=True)
class Repaired:
    plan: RepairPlan
    table: RepairTable
    written: outputs.Written
    verification: Path  # verification.md

    def lines(self) -> list[str]:
        """What came of it, as ``harness repair`` prints it."""
        counts = self.table.counts()
        shown = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items())) or "none"
        rewritten = (*self.written.datasets, *self.written.in_place)
        return [
            f"{len(self.table.rows)} drifted problems: {shown}",
            *(f"rewritten: {path}" for path in rewritten),
        ]


def repair(
    run_dir: Path,
    *,
    env_root: Path,
    reporter: Reporter,
    jobs: int = 1,
    check: bool = True,
    in_place: bool = False,
    matrix: str | None = None,
) -> Repaired:
    """Repair the drifted references of the run at ``run_dir``; verify them unless
    ``check`` is false; rewrite our TOML problems in place when ``in_place``."""
    run = RunDir(run_dir)
    if not run.root.is_dir():
        raise UsageError(f"{run_dir}: no such results directory")
    manifest = run.read_manifest()
    if manifest is None:
        raise UsageError(f"{run_dir}: not a results directory (no run.json)")
    locations = manifest.inputs.problems or defaults.problems()
    problems = problemsets.load(locations)
    proposed = plan(run, problems)
    reporter.log(
        f"repair: {len(proposed.proposed)} of {len(proposed.proposals)} drifted problems "
        "have a proposed rewrite"
    )
    if check and proposed.proposed:
        where = defaults.matrix(matrix or manifest.matrix)
        trials = run.repairs / "runs"
        lab = Lab(
            spec=spec.load(where),
            env_root=env_root,
            root=trials,
            options=execution_options.replay(
                manifest,
                jobs=jobs,
                problem_paths=problemsets.resolve(locations),
                trials=trials,
            ),
            reporter=reporter,
        )
        found = verify(run, proposed, problems, run.read_answers(), lab)
    else:
        found = unverified(proposed, run)
    written = outputs.write(run, proposed, found, locations, problems)
    run.verification_md.write_text(
        "\n".join(repairs_report.markdown(found, "#")) + "\n", encoding="utf-8"
    )
    if in_place:
        written = outputs.Written(
            written.diffs,
            written.datasets,
            tuple(outputs.rewrite_toml_in_place(proposed, found, problems)),
        )
    reports.write_reports(run)
    return Repaired(proposed, found, written, run.verification_md)
