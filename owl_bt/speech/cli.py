"""`owl-bt run --audio/--listen`: hear the goal, show it, confirm it with --interactive, and hand
the run folder what was heard (`speech.json` and the audio as `goal.wav`)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from owl_bt.errors import UsageError
from owl_bt.speech.goal import spoken_goal


def hear_goal(
    typed: str,
    audio: Path | None,
    listen_mic: bool,
    asr: str,
    task: str | None,
    scene: Path | None,
    seed: int,
    interactive: bool,
    err: Console,
) -> tuple[str, dict[str, object]]:
    """(the instruction to run, files for the run folder). Raises UsageError when a goal is also
    typed, both --audio and --listen are given, the audio is unusable or nothing was recognised,
    or the person rejects the transcript at the --interactive prompt."""
    if typed.strip():
        raise UsageError("give the goal either as text or with --audio/--listen, not both")
    if audio is not None and listen_mic:
        raise UsageError("--audio and --listen exclude each other")
    status = err.status("listening…") if listen_mic and err.is_terminal else None

    def on_state(state: str) -> None:
        if status is not None:
            status.update(state)
        elif state != "done":
            err.print(state, markup=False)

    if status is not None:
        status.start()
    try:
        heard = spoken_goal(audio, listen_mic, asr, task, scene, seed, on_state=on_state)
    finally:
        if status is not None:
            status.stop()
    err.print(
        f"heard ({heard.backend}, {heard.audio_s:.1f} s of audio): [bold]{heard.text}[/]",
        highlight=False,
    )
    text = heard.text
    if interactive:
        try:
            answer = err.input(
                "Enter to plan this goal, or type the goal as it should be (n to stop): "
            ).strip()
        except (
            EOFError,
            RuntimeError,
            OSError,
        ):  # stdin closed or at its end: nobody to confirm with
            raise UsageError(
                "--interactive needs someone at the terminal to confirm the spoken goal, and "
                "standard input is closed"
            ) from None
        if answer.lower() in ("n", "no"):
            raise UsageError("the spoken goal was not confirmed")
        if answer:
            text = answer
    record = {**heard.to_dict(), "confirmed": interactive, "instruction": text}
    files: dict[str, object] = {"speech.json": record}
    if audio is not None:
        files["goal.wav"] = Path(audio).read_bytes()
    return text, files
