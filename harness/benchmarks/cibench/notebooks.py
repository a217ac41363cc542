"""CIBench's experiments as published: jupytext Markdown (``.md``) or executed notebooks
(``.ipynb``, the official zip's layout), read into frozen ``Experiment`` values.

A Markdown experiment opens with YAML front matter (under ``jupyter:``: ``title``,
``module``, ``num_steps``, ``step_types`` — exec, num, text or vis per step — and
``modules``), then per step its prose (the prompt) and one ```python block (the reference).
A ``File Path: `data/...``` line names the data file the session reads, relative to the
experiment's folder. A notebook holds the same in its metadata and cells, and its code
cells' outputs are upstream's expected outputs (text, and the last figure as PNG).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.core.errors import ProblemError

if TYPE_CHECKING:
    from pathlib import Path

STEP_TYPES = ("exec", "num", "text", "vis")
_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
# "File Path: `data/x.csv`", also quoted or ending a sentence: the path alone
_FILE_PATH = re.compile(
    r"File Path:[ \t`'\"]*((?:\./)?data/[^\s`'\",]+?)[.,;]?[`'\"]*[ \t]*$", re.MULTILINE
)
_ITEM = re.compile(r"^\s*-\s*(.*?)\s*$")
_KEY = re.compile(r"^(\s*)([A-Za-z_][\w-]*):\s*(.*?)\s*$")


@dataclass(frozen=True)
class Step:
    prompt: str
    reference: str
    kind: str  # exec | num | text | vis (upstream's step_types)
    modules: tuple[str, ...] = ()
    # upstream's expected outputs, where a notebook published them
    text: str | None = None
    figure: str | None = None  # PNG, base64

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "reference": self.reference,
            "type": self.kind,
            "modules": list(self.modules),
            "text": self.text,
            "figure": self.figure,
        }


@dataclass(frozen=True)
class Experiment:
    name: str  # "matplotlib/matplotlib_exp02": its module folder and file name
    title: str
    module: str
    steps: tuple[Step, ...]
    data_files: tuple[str, ...]  # named by File Path lines, relative to its folder
    published: bool  # expected outputs came with it (a notebook)
    note: str = ""  # what was odd about its file, and what was made of it


def _scalar(text: str) -> str:
    return text.strip().strip("'\"")


def front_matter(text: str, shown: str) -> tuple[dict[str, Any], str]:
    """The YAML front matter of a jupytext file (flat keys and lists of scalars, which is
    all CIBench uses) and the body after it."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise ProblemError(shown, "line 1", "no front matter: expected '---'")
    meta: dict[str, Any] = {}
    current: str | None = None
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            return meta, "".join(lines[number:])
        if not line.strip() or line.strip() == "jupyter:":
            continue
        item = _ITEM.match(line)
        if item and current is not None and isinstance(meta.get(current), list):
            meta[current].append(_scalar(item.group(1)))
            continue
        key = _KEY.match(line)
        if key is None:
            raise ProblemError(
                shown, f"line {number}", f"cannot read front matter: {line.strip()!r}"
            )
        current, value = key.group(2), key.group(3)
        meta[current] = _scalar(value) if value else []
    raise ProblemError(shown, "line 1", "front matter never closed with '---'")


def _kinds(meta: dict[str, Any], count: int, shown: str) -> tuple[list[str], list[str], str]:
    """Each step's type and modules, and a note when the front matter does not count the
    steps as the file has them: upstream pairs them in order (``zip``), so a type
    without a step is dropped, and a step without a type is graded as ``exec``."""
    kinds = meta.get("step_types") or ["exec"] * count
    modules = meta.get("modules") or [""] * count
    for key, value in (("step_types", kinds), ("modules", modules)):
        if not isinstance(value, list):
            raise ProblemError(shown, key, "must be a list, one entry per step")
    wrong = [k for k in kinds if k not in STEP_TYPES]
    if wrong:
        raise ProblemError(
            shown, "step_types", f"{wrong[0]!r} is not one of {', '.join(STEP_TYPES)}"
        )
    note = ""
    if len(kinds) != count:
        note = f"step_types has {len(kinds)} entries for {count} steps: paired in order"
    kinds = (kinds + ["exec"] * count)[:count]
    modules = (modules + [""] * count)[:count]
    return kinds, modules, note


def _modules(text: str) -> tuple[str, ...]:
    return tuple(m.strip() for m in str(text).split("&") if m.strip())


def read_markdown(path: Path, name: str) -> Experiment:
    """One jupytext Markdown experiment."""
    shown = str(path)
    meta, body = front_matter(path.read_text(encoding="utf-8"), shown)
    prompts, codes, start = [], [], 0
    for block in _FENCE.finditer(body):
        prompts.append(body[start : block.start()].strip())
        codes.append(block.group(1))
        start = block.end()
    if not codes:
        raise ProblemError(shown, None, "no ```python block: an experiment needs steps")
    kinds, modules, note = _kinds(meta, len(codes), shown)
    steps = tuple(
        Step(p, c, k, _modules(m))
        for p, c, k, m in zip(prompts, codes, kinds, modules, strict=True)
    )
    return Experiment(
        name=name,
        title=str(meta.get("title", "")),
        module=str(meta.get("module", "")),
        steps=steps,
        data_files=tuple(dict.fromkeys(_FILE_PATH.findall(body))),
        published=False,
        note=note,
    )


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _outputs(cell: dict[str, Any]) -> tuple[str | None, str | None]:
    """A code cell's expected text (its streams and results, in order) and its last figure."""
    texts: list[str] = []
    figure = None
    for output in cell.get("outputs") or []:
        if not isinstance(output, dict):
            continue
        if output.get("output_type") == "stream":
            texts.append(_joined(output.get("text")))
        data = output.get("data") or {}
        if "image/png" in data:
            figure = _joined(data["image/png"]).replace("\n", "")
        elif "text/plain" in data:
            texts.append(_joined(data["text/plain"]) + "\n")
    return ("".join(texts) if texts else None), figure


def read_notebook(path: Path, name: str) -> Experiment:
    """One executed notebook of the official zip: markdown and code cells pair up in
    order, as upstream's ``load_experiment`` pairs them."""
    shown = str(path)
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProblemError(shown, None, f"not a notebook: {exc}") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ProblemError(shown, "cells", "missing: not a notebook")
    meta = notebook.get("metadata") or {}
    prompts: list[str] = []
    cells: list[dict[str, Any]] = []
    question = ""
    for cell in notebook["cells"]:
        kind = cell.get("cell_type") if isinstance(cell, dict) else None
        if kind == "markdown":
            question = _joined(cell.get("source")).strip()
        elif kind == "code":
            prompts.append(question)
            cells.append(cell)
            question = ""
    if not cells:
        raise ProblemError(shown, "cells", "no code cell: an experiment needs steps")
    kinds, modules, note = _kinds(meta, len(cells), shown)
    steps = []
    for prompt, cell, kind, module in zip(prompts, cells, kinds, modules, strict=True):
        text, figure = _outputs(cell)
        steps.append(
            Step(prompt, _joined(cell.get("source")), kind, _modules(module), text, figure)
        )
    body = "\n".join(prompts)
    return Experiment(
        name=name,
        title=str(meta.get("title", "")),
        module=str(meta.get("module", "")),
        steps=tuple(steps),
        data_files=tuple(dict.fromkeys(_FILE_PATH.findall(body))),
        published=True,
        note=note,
    )


def read(path: Path, name: str) -> Experiment:
    return read_notebook(path, name) if path.suffix == ".ipynb" else read_markdown(path, name)
