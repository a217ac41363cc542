"""``harness repair``: propose, verify and write the repairs of a finished run.

The stages, each taking the previous one's result: the run's problems (as its manifest
records them) → :func:`harness.repair.plan.plan` → :func:`harness.repair.verify.verify`
(or nothing, with ``--no-verify``) → :func:`harness.repair.outputs.write` → the run's
reports, rewritten so that summary.md and report.html show the Repairs section.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness import downloads, pipeline, reports, spec
from harness.errors import UsageError
from harness.repair import outputs
from harness.repair.plan import RepairPlan, plan
from harness.repair.verify import Lab, unverified, verify
from harness.rundir import RunDir

if TYPE_CHECKING:
    from pathlib import Path

    from harness.progress import Reporter
    from harness.repair.table import RepairTable


@dataclass(frozen=True)
class Repaired:
    plan: RepairPlan
    table: RepairTable
    written: outputs.Written


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
    manifest = run.read_manifest()
    if manifest is None:
        raise UsageError(f"{run_dir}: not a results directory (no run.json)")
    locations = manifest.inputs.problems or pipeline.DEFAULT_PROBLEMS
    problems = pipeline.load_problems(locations)
    proposed = plan(run, problems)
    reporter.log(
        f"repair: {len(proposed.proposed)} of {len(proposed.proposals)} drifted problems "
        "have a proposed rewrite"
    )
    if check and proposed.proposed:
        where = matrix or manifest.matrix or "matrix.toml"
        hidden = [str(downloads.resolve(p).absolute()) for p in locations]
        lab = Lab(
            spec=spec.load(where),
            env_root=env_root,
            root=outputs.repairs_dir(run) / "runs",
            jobs=jobs,
            reporter=reporter,
            hide=(*hidden, str(run.root.parent.absolute())),
        )
        found = verify(run, proposed, problems, run.read_answers(), lab)
    else:
        found = unverified(proposed, run)
    written = outputs.write(run, proposed, found, locations, problems)
    if in_place:
        written = outputs.Written(
            written.diffs,
            written.datasets,
            tuple(outputs.rewrite_toml_in_place(proposed, found, problems)),
        )
    reports.write_reports(run)
    return Repaired(proposed, found, written)
