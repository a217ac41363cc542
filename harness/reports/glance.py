"""The first screen of a run's reports in words: the run in one sentence, and what is new
since the last run (plain text: markdown and HTML both mark it up). The numbers are
``harness.analysis.glance``'s."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.analysis.changes import Changes
    from harness.analysis.glance import Glance


def headline(g: Glance) -> str:
    """The run in one sentence."""
    text = f"{g.problems} problems × {g.combos} combos, {g.executions} executions."
    if g.ours:
        text += (
            f" Of {g.ours} problems of ours, the old idiom breaks in {g.old_breaks}"
            f" and the modern idiom is red before its first release in {g.modern_not_yet}"
            " (not drift)."
        )
    text += f" References that drift: {g.drifted}."
    if g.format_drifted:
        text += (
            f" References whose printed output changed, its values the same (format drift,"
            f" not a broken API): {g.format_drifted}."
        )
    return text


def unsandboxed(g: Glance) -> str:
    """Where model answers ran without the sandbox, in one line ('' where none did)."""
    if not g.unsandboxed:
        return ""
    where = "; ".join(f"`{combo}` ({why})" for combo, why in g.unsandboxed)
    return (
        f"Warning: model answers ran without the sandbox in {where}, as "
        "`--allow-unsandboxed-answers` allowed: untrusted code ran with this machine's reach."
    )


def since(changes: Changes | None) -> str:
    """What is new since the previous run, in one line."""
    if changes is None:
        return "No previous run to compare with (first run, or no history)."
    return (
        f"Since `{changes.previous}`: {len(changes.new_failures)} new failures, "
        f"{len(changes.new_fixes)} new fixes, {len(changes.new_warnings)} new warnings, "
        f"{len(changes.releases)} library versions changed."
    )
