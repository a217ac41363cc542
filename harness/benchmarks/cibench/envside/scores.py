"""CIBench's step scores, as OpenCompass's ``CIBenchEvaluator`` computes them.

* ``num`` (upstream's ``correct_step``): the step's output equals the expected output or
  is a part of it. Upstream has no numeric tolerance: the comparison is of text.
* ``text`` (upstream's ``text_step``): ROUGE-1 F-measure of the output against the
  expected output (OpenCompass's ``RougeEvaluator``, ``rouge1``, no stemming: lower case,
  runs of letters and digits as tokens).
* ``vis`` (upstream's ``vis_similarity_step``): the structural similarity (SSIM) of the
  step's figure, resized to the expected figure's size, with the expected figure, over
  its colour channels. With scikit-image where the environment has it (upstream's
  ``structural_similarity``), else the same measure with NumPy: a 7×7 uniform window,
  K1 = 0.01, K2 = 0.03, sample covariances, data range 255, the mean over the channels.

Upstream averages the scores over all steps and sets no threshold; a graded part needs
one, so a ``text`` step passes from ``TEXT_THRESHOLD`` and a ``vis`` step from
``VIS_THRESHOLD`` (ours), and each part's message gives the score.
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from typing import Any

TEXT_THRESHOLD = 0.5
VIS_THRESHOLD = 0.9
_TOKEN = re.compile(r"[a-z0-9]+")
# a number standing on its own: not the 64 of ``float64``, nor a name's digits
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def num_matches(output: str, expected: str) -> bool:
    """Upstream: ``out == target or out in target`` (surrounding whitespace aside: a
    notebook's text and a captured stdout differ in their last newline)."""
    out, target = output.strip(), expected.strip()
    return bool(out) and (out == target or out in target)


def same_values(output: str, expected: str) -> bool:
    """Whether two outputs print the same numbers, in order, however else they differ
    (``np.float64(0.5)`` and ``0.5``): output-format drift, not a changed result."""
    got, want = _NUMBER.findall(output), _NUMBER.findall(expected)
    return (
        bool(want)
        and len(got) == len(want)
        and all(float(a) == float(b) for a, b in zip(got, want))
    )


def rouge1(output: str, expected: str) -> float:
    """ROUGE-1 F-measure, as ``rouge_score`` computes it without a stemmer."""
    got = Counter(_TOKEN.findall(output.lower()))
    want = Counter(_TOKEN.findall(expected.lower()))
    if not got or not want:
        return 0.0
    overlap = sum((got & want).values())
    if not overlap:
        return 0.0
    precision = overlap / sum(got.values())
    recall = overlap / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def _pixels(png: bytes, size: Any = None) -> Any:
    """A PNG as an array of 8-bit channels (resized to ``size``, (height, width))."""
    import io

    # the libraries of the environment under test, imported by name: the env side's own
    # code imports only the standard library
    np = importlib.import_module("numpy")
    Image: Any = importlib.import_module("PIL.Image")
    image: Any = Image.open(io.BytesIO(png))
    image.load()
    if image.mode not in ("RGB", "RGBA", "L"):
        image = image.convert("RGBA")
    if size is not None and image.size != (size[1], size[0]):
        image = image.resize((size[1], size[0]), getattr(Image, "Resampling", Image).BILINEAR)
    array = np.asarray(image, dtype=np.uint8)
    return array[..., None] if array.ndim == 2 else array


def _ssim_numpy(first: Any, second: Any) -> float:
    np = importlib.import_module("numpy")

    def mean_filter(plane: Any) -> Any:
        # a 7×7 box mean over the valid region (skimage crops the border the same way)
        total = np.cumsum(np.cumsum(np.pad(plane, ((1, 0), (1, 0))), 0), 1)
        window = 7
        return (
            total[window:, window:]
            - total[:-window, window:]
            - total[window:, :-window]
            + total[:-window, :-window]
        ) / (window * window)

    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    factor = 49 / 48  # sample covariance
    scores = []
    for channel in range(first.shape[-1]):
        x = first[..., channel].astype(np.float64)
        y = second[..., channel].astype(np.float64)
        ux, uy = mean_filter(x), mean_filter(y)
        vx = factor * (mean_filter(x * x) - ux * ux)
        vy = factor * (mean_filter(y * y) - uy * uy)
        vxy = factor * (mean_filter(x * y) - ux * uy)
        s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
        scores.append(float(s.mean()))
    return sum(scores) / len(scores)


def ssim(figure: bytes, expected: bytes) -> float:
    """The structural similarity of two PNGs, ``figure`` resized to ``expected``'s size."""
    want = _pixels(expected)
    got = _pixels(figure, want.shape[:2])
    if got.shape[-1] != want.shape[-1]:  # RGB against RGBA: compare the colours
        channels = min(got.shape[-1], want.shape[-1], 3)
        got, want = got[..., :channels], want[..., :channels]
    if min(want.shape[:2]) < 7:
        return 1.0 if got.tobytes() == want.tobytes() else 0.0
    try:
        metrics = importlib.import_module("skimage.metrics")
    except ImportError:
        return _ssim_numpy(got, want)
    return float(metrics.structural_similarity(got, want, channel_axis=-1))
