"""Backend selection: the VLM for a spec `[method/]backend[:argument]` (see `owl_bt.language.vlm`)."""

from __future__ import annotations

from pathlib import Path

from owl_bt.errors import UsageError
from owl_bt.language.offline import OfflineGrounder
from owl_bt.language.replay import ReplayVLM
from owl_bt.language.scripted import ScriptedVLM
from owl_bt.language.settings import load_settings
from owl_bt.language.vlm import BACKENDS, VLM, parse_spec


def make_vlm(name: str, oracle: tuple[str, str] | None = None) -> VLM:
    """The backend for spec `name` (see `owl_bt.language.vlm`); raises UsageError naming the
    available ones, or saying what the backend is missing (no oracle answers, no transcript, no
    endpoint settings).

    `oracle`: (sketch answer, checker answer) — the task's hand-written ground truth, needed by the
    `oracle` backend.
    """
    method, backend, arg = parse_spec(name)
    vlm: VLM
    if backend == "offline":
        vlm = OfflineGrounder()
    elif backend == "oracle":
        if not oracle or not all(oracle):
            raise UsageError(
                "the oracle holds hand-written answers for the benchmark tasks only (--task); for a scene "
                "file or a goal of your own use --vlm offline or openai"
            )
        vlm = ScriptedVLM("oracle", *oracle)
    elif backend == "openai":
        # the openai client takes about a second to import: only when this backend is asked for
        from owl_bt.language.openai_vlm import OpenAIVLM

        vlm = OpenAIVLM(load_settings())
    elif backend == "replay":
        if not arg:
            raise UsageError("the replay backend needs a run folder: --replay RUN_DIR")
        vlm = ReplayVLM.from_path(Path(arg))
    else:
        raise UsageError(f"unknown VLM backend {backend!r}; available: {', '.join(BACKENDS)}")
    vlm.method = method  # type: ignore[attr-defined]
    return vlm
