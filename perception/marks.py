"""Naming found segments by a vision-language model: the image with a numbered mark over each
segment (its outline and its number), and the model names each mark's kind.

`MarkNamer.name(rgb, masks)` draws the marks (`draw_marks`), sends one chat request with the image
(any VLM with `complete(messages, images) -> str`, the protocol of `owl_bt.language`; an
OpenAI-compatible endpoint with `--vlm openai`) and reads one line per mark, `<number>: <kind>`,
where the kind is one of the catalogue's or `unknown`. A mark the answer leaves out, names
`unknown` or names no catalogue kind gets None (the caller keeps its offline name). A model that
does not answer (an endpoint error) leaves every mark None, with the reason in `last_error`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

import numpy as np

MARK_COLOUR = (255, 40, 200)  # outline and label colour: a magenta no catalogue thing has
_LINE = re.compile(r"^\s*(?:mark\s*)?#?(\d+)\s*[:.)=-]\s*([A-Za-z][A-Za-z _-]*)", re.IGNORECASE)


def draw_marks(rgb: np.ndarray, masks: Sequence[np.ndarray]) -> bytes:
    """PNG bytes of `rgb` (H×W×3 uint8) with each of `masks` (H×W bool) outlined and numbered
    1, 2, … at its centre (on a dark box, so the number reads on any colour)."""
    from PIL import Image, ImageDraw
    from scipy.ndimage import binary_erosion

    img = np.asarray(rgb, dtype=np.uint8)[:, :, :3].copy()
    for mask in masks:
        edge = mask & ~binary_erosion(mask, iterations=1)
        img[edge] = MARK_COLOUR
    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    for i, mask in enumerate(masks, start=1):
        rows, cols = np.nonzero(mask)
        if not len(rows):
            continue
        x, y = int(np.median(cols)), int(np.median(rows))
        label = str(i)
        box = draw.textbbox((x, y), label, anchor="mm")
        draw.rectangle((box[0] - 2, box[1] - 2, box[2] + 2, box[3] + 2), fill=(0, 0, 0))
        draw.text((x, y), label, fill=MARK_COLOUR, anchor="mm")
    buf = io.BytesIO()
    pil.save(buf, format="PNG")
    return buf.getvalue()


def prompt(count: int, kinds: Sequence[str]) -> str:
    """The question for `count` marks, the answer's kinds limited to `kinds`."""
    return (
        f"The image shows a table seen by a robot's camera, with {count} numbered marks: each "
        "magenta outline with a number is one thing the robot found. Name the kind of each "
        f"marked thing. Answer with exactly {count} lines, one per mark, as '<number>: <kind>', "
        "the kind being one of these words, or 'unknown' when none fits: " + ", ".join(kinds) + "."
    )


class MarkNamer:
    """Names numbered marks with a VLM; `kinds`: the catalogue kinds an answer may give."""

    def __init__(self, vlm, kinds: Sequence[str]) -> None:
        self.vlm, self.kinds = vlm, sorted(kinds)
        self.last_error: str | None = None
        self.last_image: bytes | None = None

    def name(self, rgb: np.ndarray, masks: Sequence[np.ndarray]) -> list[str | None]:
        """A kind (or None) per mask, in order (see the module docstring)."""
        from owl_bt.errors import OwlError

        self.last_error = None
        if not masks:
            return []
        self.last_image = draw_marks(rgb, masks)
        question = [{"role": "user", "content": prompt(len(masks), self.kinds)}]
        try:
            answer = self.vlm.complete(question, [self.last_image])
        except OwlError as exc:  # no answer: offline names stay
            self.last_error = str(exc)
            return [None] * len(masks)
        return parse_answer(answer, len(masks), self.kinds)


def parse_answer(answer: str, count: int, kinds: Sequence[str]) -> list[str | None]:
    """The kind per mark 1..count from lines '<number>: <kind>' (spaces or hyphens in a kind read
    as underscores; a trailing plural 's' dropped); None where a line is missing, says unknown or
    names no kind in `kinds`. The first line for a number counts."""
    known = set(kinds)
    out: list[str | None] = [None] * count
    seen: set[int] = set()
    for line in (answer or "").splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        i = int(m.group(1))
        if not 1 <= i <= count or i in seen:
            continue
        seen.add(i)
        word = re.sub(r"[\s-]+", "_", m.group(2).strip().lower()).strip("_")
        for candidate in (word, word.removesuffix("s")):
            if candidate in known:
                out[i - 1] = candidate
                break
    return out
