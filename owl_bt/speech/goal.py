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
    from owl_bt.language.sandbox import reserved_names
    from sim import tasks
    from sim.scene_file import load_scene
    from sim.world import SimWorld

    setup = (
        load_scene(scene, reserved_names()) if scene is not None else tasks.get(task or "berry1")
    )
    world = SimWorld()
    try:
        setup.build(world, seed)
        state = world.ground_truth()
    except (OwlError, ValueError, TypeError) as exc:
        raise UsageError(
            exc.reason if isinstance(exc, OwlError) else f"the scene cannot be built: {exc}"
        ) from None
    finally:
        world.close()
    return [SceneName(n, o.category, o.colour or "", o.fixed) for n, o in state.objects.items()]


def check_meant_for_this_scene(text: str, names: list[SceneName]) -> None:
    """Raise UsageError when the heard goal names an object the scene does not have, or would move
    one that cannot move — speech meant for another scene (or misheard). Words the offline
    grounder does not know are let through: a configured VLM may still understand them."""
    from owl_bt.errors import GroundingError, UnknownObjectError
    from owl_bt.language.goals import MovesFixed
    from owl_bt.language.offline import SceneObject, ground

    have = ", ".join(n.name for n in names)
    try:
        ground(text, [SceneObject(n.name, n.category, n.colour) for n in names])
    except UnknownObjectError as exc:
        raise UsageError(
            f"the spoken goal {text!r} names a {exc.name.replace('_', ' ')}, which this scene does not have "
            f"({have}): was it meant for another scene?"
        ) from None
    except MovesFixed as exc:
        raise UsageError(
            f"the spoken goal {text!r} would move the {exc.obj.replace('_', ' ')}, which does not move: "
            "was it meant for another scene, or misheard? (--interactive lets you correct it)"
        ) from None
    except GroundingError:
        return


def spoken_goal(
    audio: Path | None,
    listen_mic: bool,
    asr: str,
    task: str | None,
    scene: Path | None,
    seed: int,
    device: int | str | None = None,
    on_state: Callable[[str], None] = lambda s: None,
) -> Transcript:
    """Recognise the goal in `audio` (a 16 kHz mono WAV) or, with `listen_mic`, from the
    microphone; raises UsageError with a one-line reason for every problem, also for a goal meant
    for another scene (`check_meant_for_this_scene`)."""
    if (audio is None) == (not listen_mic):
        raise UsageError("give either --audio FILE.wav or --listen")
    clip = (
        read_wav(audio) if audio is not None else None
    )  # a bad file is named before the scene is built
    names = scene_names(task, scene, seed)
    recogniser = make_recogniser(asr, names)
    if clip is None:
        clip = listen(device, on_state=on_state)
    heard = recogniser.transcribe(clip)
    check_meant_for_this_scene(heard.text, names)
    return heard
