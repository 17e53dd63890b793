"""A spoken goal for `owl-bt run --audio FILE` / `--listen`: find the objects of the scene the run
will use (the grammar needs their names), get the audio, recognise it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from owl_bt.errors import OwlError, UsageError
from owl_bt.speech.asr import Transcript, make_recogniser
from owl_bt.speech.audio import listen, read_wav
from owl_bt.speech.grammar import SceneName


def scene_names(task: str | None, scene: Path | None, seed: int) -> list[SceneName]:
    """Name, category and colour of every object of the benchmark task `task` (or the user scene
    file `scene`) as built with `seed` — what perception will report. Raises UsageError."""
    from sim import tasks
    from sim.scene_file import load_scene
    from sim.world import SimWorld

    setup = load_scene(scene) if scene is not None else tasks.get(task or "berry1")
    world = SimWorld()
    try:
        setup.build(world, seed)
        state = world.ground_truth()
    except (OwlError, ValueError, TypeError) as exc:
        raise UsageError(exc.reason if isinstance(exc, OwlError) else f"the scene cannot be built: {exc}") from None
    finally:
        world.close()
    return [SceneName(n, o.category, o.colour or "") for n, o in state.objects.items()]


def spoken_goal(audio: Path | None, listen_mic: bool, asr: str, task: str | None, scene: Path | None, seed: int,
                device: int | str | None = None, on_state: Callable[[str], None] = lambda s: None) -> Transcript:
    """Recognise the goal in `audio` (a 16 kHz mono WAV) or, with `listen_mic`, from the
    microphone; raises UsageError with a one-line reason for every problem."""
    if (audio is None) == (not listen_mic):
        raise UsageError("give either --audio FILE.wav or --listen")
    clip = read_wav(audio) if audio is not None else None  # a bad file is named before the scene is built
    recogniser = make_recogniser(asr, scene_names(task, scene, seed))
    if clip is None:
        clip = listen(device, on_state=on_state)
    return recogniser.transcribe(clip)
