"""report.html in a real headless browser: it loads without console errors and shows the counts.

Chromium comes from Debian's packages; `.ci/run` installs it. Elsewhere, where it is
absent, the browser test is skipped saying so (under CI it fails instead).
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.analysis.changes import Changes, StatusChange
from harness.core.results import OutcomeWriter, Status, read_outcomes
from harness.reports import write_reports
from tests.test_reports import PROBLEMS, make_idiom_run, make_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="Chromium is not installed (apt-get install chromium; .ci/run does it)",
)


def browse(page: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM, "Chromium is required under CI"
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            *extra,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_report_is_self_contained(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    write_reports(run)
    text = run.report_html.read_text()
    assert not re.search(r"""(src|href)=["']https?:""", text)  # nothing fetched
    assert "<script" not in text
    # one cell per source, combo and problem: 2 sources, 3 combos, 3 problems
    assert text.count("<rect") == 2 * 3 * 3
    assert 'data-count="drifted">2<' in text


@needs_chromium
def test_report_in_a_headless_browser(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    summary = write_reports(run)
    dom = browse(run.report_html, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    counts = dict(re.findall(r'data-count="(\w+)">(\d+)<', dom.stdout))
    data = json.loads(run.summary_json.read_text())
    assert counts == {
        "combos": str(len(data["combos"])),
        "problems": str(data["problems"]),
        "executions": str(data["executions"]),
        "drifted": str(len(data["drift"])),
        "warnings": str(len(data["warnings"])),
        "limited": str(
            sum(1 for v in json.loads(run.validity_json.read_text()) if v["class"] == "drifted")
        ),
    }
    passes = dict(re.findall(r'data-pass="([^"]+)">(\d+)<', dom.stdout))
    assert passes["old|reference"] == "2"
    assert passes["new|reference"] == "0"
    assert len(summary.drift) == 2
    shot = browse(
        run.report_html,
        tmp_path,
        "--screenshot=" + str(tmp_path / "report.png"),
        "--window-size=1200,900",
    )
    assert shot.returncode == 0
    assert (tmp_path / "report.png").stat().st_size > 10_000
    # `nox -s screenshot`: the README's picture, of a real run's report
    real = os.environ.get("HARNESS_SCREENSHOT_OF")
    if real:
        picture = Path(__file__).resolve().parents[1] / "docs" / "report.png"
        shot = browse(
            Path(real, "report.html").resolve(),
            tmp_path,
            "--screenshot=" + str(picture),
            "--window-size=1200,900",
            "--hide-scrollbars",
        )
        assert shot.returncode == 0, shot.stderr[-2000:]
        assert picture.stat().st_size > 10_000


def test_the_first_screen_and_the_idioms_in_report_html(tmp_path: Path) -> None:
    run = make_idiom_run(tmp_path)
    changes = Changes(
        "i0",
        "i1",
        new_failures=(StatusChange("latest", "ours/pandas/append", "idiom:old", "pass", "error"),),
    )
    write_reports(run, changes, PROBLEMS)
    text = run.report_html.read_text()
    first = text[: text.index("<h2>Environments</h2>")]
    assert "3 problems × 3 combos, 18 executions." in first
    broken = dict(re.findall(r'data-broken="([^"]+)">(\d+)<', first))
    assert broken == {
        "y2022|reference": "1",
        "y2022|idiom:old": "0",
        "y2024|reference": "0",
        "y2024|idiom:old": "1",
        "latest|reference": "0",
        "latest|idiom:old": "2",
    }
    assert re.findall(r'data-cause="([^"]+)"', first) == ["changed-behaviour", "removed-api"]
    assert "Since <code>i0</code>: 1 new failures" in first
    assert "new failure: <code>latest</code> <code>ours/pandas/append</code> idiom:old" in first
    assert re.findall(r'data-story="([^"]+)"', text) == [
        "ours/pandas/append",
        "ours/pandas/later",
        "ours/pandas/wrong",
    ]
    assert 'data-count="old-breaks">2<' in text
    assert "red in <code>y2022</code>: the API did not exist yet — not drift" in text
    assert "a red cell left of a problem's first green one means the API did not exist yet" in text
    assert "<script" not in text


def test_report_html_is_deterministic(tmp_path: Path) -> None:
    pages = []
    for name in ("a", "b"):
        run = make_idiom_run(tmp_path / name)
        write_reports(run, problems=PROBLEMS)
        pages.append((run.report_html.read_text(), run.summary_md.read_text()))
    assert pages[0] == pages[1]


def test_the_drift_table_of_report_html_is_the_one_of_summary_md(tmp_path: Path) -> None:
    """Both format the same rows: the same cells, the versions that changed included, and
    the status where the failure has no message."""
    run = make_run(tmp_path)
    outcomes, _ = read_outcomes(run.outcomes("new"))
    silent = [
        dataclasses.replace(o, status=Status.TIMEOUT, exc_type=None, message="")
        if (o.problem_id, o.source) == ("p/2", "reference")
        else o
        for o in outcomes
    ]
    run.outcomes("new").unlink()
    with OutcomeWriter(run.outcomes("new")) as writer:
        writer.write_all(silent)
    write_reports(run)
    page = run.report_html.read_text()
    table = page[page.index("<h2>Drifted problems") :].split("</table>")[0]
    header = [html.unescape(h) for h in re.findall(r"<th>(.*?)</th>", table)]
    rows = [
        [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<td>(.*?)</td>", r)]
        for r in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1])
    ]
    md = run.summary_md.read_text().splitlines()
    at = md.index("| " + " | ".join(header) + " |")
    shown = [
        [c.strip().replace("`", "") for c in line.split(" | ")] for line in md[at + 2 : at + 4]
    ]
    shown = [[row[0].removeprefix("| "), *row[1:-1], row[-1].removesuffix(" |")] for row in shown]
    assert header[-1] == "changed"
    assert rows == shown
    assert rows[1][4] == "timeout"  # the error: no message, so its status
    assert rows[1][-1] == "numpy 1.26.4→2.1.3"
