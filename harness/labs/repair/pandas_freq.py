"""pandas codemods: frequency aliases. pandas 2.2 deprecated the one-letter aliases of
periods and offsets that 3.0 removes (``'M'`` → ``'ME'``, ``'H'`` → ``'h'``, ``'T'`` →
``'min'``…); a frequency string is rewritten where pandas reads one."""

from __future__ import annotations

import re
from typing import ClassVar

import libcst as cst

from harness.labs.repair.base import (
    Transformer,
    callee_name,
    string_value,
    with_string,
)

# pandas 2.2 renamed these everywhere (offsets and periods)
_UNIT_ALIASES = {
    "H": "h",
    "BH": "bh",
    "CBH": "cbh",
    "T": "min",
    "S": "s",
    "L": "ms",
    "U": "us",
    "N": "ns",
}


# and these only for offsets: for periods "M" stays "M" and "ME" is invalid
_END_ALIASES = {
    "M": "ME",
    "BM": "BME",
    "CBM": "CBME",
    "SM": "SME",
    "Q": "QE",
    "BQ": "BQE",
    "A": "YE",
    "Y": "YE",
    "BA": "BYE",
    "BY": "BYE",
    "AS": "YS",
    "BAS": "BYS",
}


_CURRENT_ALIASES = frozenset(
    {"D", "B", "C", "W", "MS", "BMS", "CBMS", "SMS", "QS", "BQS", "YS", "BYS"}
    | set(_UNIT_ALIASES.values())
    | set(_END_ALIASES.values())
)


_PIECE = re.compile(r"([+-]?\d*)([A-Za-z]+)")


_ANCHOR = re.compile(r"-[A-Z]{3}$")  # "W-SUN", "Q-DEC"


def new_frequency(text: str, *, offsets: bool) -> str | None:
    """``text`` in current aliases ("5T" → "5min"), or ``None`` if it is no frequency."""
    anchor = _ANCHOR.search(text)
    body = text[: anchor.start()] if anchor else text
    pieces = _PIECE.findall(body)
    if not pieces or "".join(m + a for m, a in pieces) != body or (anchor and len(pieces) > 1):
        return None
    out = []
    for multiple, alias in pieces:
        if alias in _UNIT_ALIASES:
            alias = _UNIT_ALIASES[alias]  # noqa: PLW2901
        elif alias in _END_ALIASES:
            alias = _END_ALIASES[alias] if offsets else alias  # noqa: PLW2901
        elif alias not in _CURRENT_ALIASES:
            return None
        out.append(multiple + alias)
    return "".join(out) + (anchor.group() if anchor else "")


class FreqAliases(Transformer):
    """Frequency strings given to ``freq=``, ``resample``, ``date_range``, ``asfreq``,
    ``Grouper(freq=)``...: ``"T"`` → ``"min"``, ``"H"`` → ``"h"``, ``"S"`` → ``"s"``,
    ``"L"`` → ``"ms"``, ``"U"`` → ``"us"``, ``"N"`` → ``"ns"``, multiples too (``"5T"`` →
    ``"5min"``); and for offsets (``date_range``, ``bdate_range``, ``resample``,
    ``Grouper``) the period ends: ``"M"`` → ``"ME"``, ``"Q"`` → ``"QE"``, ``"Y"``/``"A"`` →
    ``"YE"``, ``"BM"`` → ``"BME"``... Where the string could be a period's frequency
    (``asfreq``, ``to_period``, ``period_range``, any other ``freq=``) only the first
    kind is renamed: ``"ME"`` is no period frequency.

    Version-conditioned: ``"ME"``, ``"QE"``, ``"YE"`` are invalid before pandas 2.2, so in
    older pandas the result needs the old alias back (the unit aliases ``"h"``,
    ``"min"``, ``"s"`` are understood by old pandas too). Only string literals that are
    whole frequencies are touched: ``df["T"]`` or ``title="T"`` never are.
    """

    name = "pandas-freq-aliases"
    description = "frequency aliases 'T'/'H'/'S'/'L'/'U'/'N'/'M'/'Q'/'Y'/'A' → 'min'/'h'/'s'/'ms'/'us'/'ns'/'ME'/'QE'/'YE'"
    library = "pandas"
    reference = "pandas 2.2.0 release notes: deprecated frequency aliases H, T, S, L, U, N (lower case now) and M, Q, Y, A for offsets (ME, QE, YE): https://pandas.pydata.org/docs/whatsnew/v2.2.0.html"

    # callee → (index of the frequency among positional arguments, or None; offsets only?)
    _CALLS: ClassVar[dict[str, tuple[int | None, bool]]] = {
        "date_range": (3, True),
        "bdate_range": (3, True),
        "resample": (0, True),
        "Grouper": (None, True),
        "asfreq": (0, False),
        "to_period": (0, False),
        "period_range": (3, False),
        "timedelta_range": (3, False),
        "round": (0, False),
        "floor": (0, False),
        "ceil": (0, False),
        "rolling": (0, False),
    }
    _KEYWORDS = frozenset({"freq", "rule", "window"})
    mentions = ("freq", "rule", "window", *_CALLS)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        index, offsets = self._CALLS.get(callee_name(updated_node) or "", (None, False))
        known = callee_name(updated_node) in self._CALLS
        args = list(updated_node.args)
        changed = False
        for i, arg in enumerate(args):
            if arg.keyword is not None:
                name = arg.keyword.value
                wanted = name == "freq" or (known and name in self._KEYWORDS)
            else:
                wanted = known and not arg.star and i == index
            if not wanted or not isinstance(arg.value, cst.SimpleString):
                continue
            text = string_value(arg.value)
            new = new_frequency(text, offsets=offsets) if text is not None else None
            if new is not None and new != text:
                args[i] = arg.with_changes(value=with_string(arg.value, new))
                changed = True
        return updated_node.with_changes(args=args) if changed else updated_node
