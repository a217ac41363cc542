"""What every page of the reports is made of: the status colours, the style, escaping,
percentages and tables (cells are pre-escaped HTML)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

COLOURS = {
    Status.PASS.value: "#2e9e5b",
    Status.FAIL.value: "#e0a526",
    Status.ERROR.value: "#d64545",
    Status.TIMEOUT.value: "#8e44ad",
    Status.CRASH.value: "#222222",
    Status.SKIPPED.value: "#cfd4da",
    Status.ENV_ERROR.value: "#7f8c8d",
    "missing": "#ffffff",
}
CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2329}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #dde1e5}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #dde1e5;padding:3px 8px;text-align:left;vertical-align:top;max-width:36em;overflow-wrap:anywhere}
th{background:#f3f5f7}td.num{text-align:right;font-variant-numeric:tabular-nums}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
.heat{overflow-x:auto;border:1px solid #dde1e5;padding:6px;margin:6px 0 18px}
.heat svg{display:block}code{background:#f3f5f7;padding:0 3px}
.muted{color:#69737d}
"""


def e(text: object) -> str:
    """``text`` escaped for HTML."""
    return html.escape(str(text), quote=True)


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(rows_cell(c) for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def rows_cell(cell: str) -> str:
    """Cells are pre-escaped HTML; a leading '#' marks a right-aligned number."""
    if cell.startswith("#"):
        return f'<td class="num">{cell[1:]}</td>'
    return f"<td>{cell}</td>"
