"""`owl-bt run`, the account: what the run did, on the terminal — the plan sketch, the checkers,
the grounded plan, the replanning, the final tree, the detector's verdict and the figures — then the
last line (`success: …`, or with --json the result as one JSON object) and the exit code.

With --json the account goes to stderr and stdout carries the JSON object only.
"""

from __future__ import annotations

import json
import re
import sys

from rich.syntax import Syntax

from owl_bt.cli.base import err, out
from owl_bt.episode import EpisodeResult
from owl_bt.episode_config import EpisodeConfig
from owl_bt.language.checker_names import called_helpers, count_line, split_checkers
from owl_bt.report.console import LOST, lose_stdout_quietly


def present(
    result: EpisodeResult,
    cfg: EpisodeConfig,
    instruction: str,
    as_json: bool,
    verbose: bool,
    setup_seconds: float,
) -> tuple[int, bool]:
    """Print the account of `result`; returns (the exit code: 0 success, 1 not done, 130 stopped;
    whether this is the `owl-bt` program, which then leaves without the interpreter's shutdown)."""
    view = err if as_json else out  # with --json, stdout carries the JSON object only
    LOST.stdout_ok = (
        True  # the task has ended: a reader of stdout gone now costs the account, not the exit code
    )
    last = (
        f" (attempt {result.attempts}, the last)" if result.attempts > 1 else ""
    )  # which attempt the plan shown is from
    sketch_from = _from_attempt(result.sketch_attempt, result.attempts, "made no constraints")
    view.rule(f"plan sketch{sketch_from or last}")
    view.print(result.sketch or "(none)", markup=False)
    view.rule(f"checkers{sketch_from or last}")
    helpers, called = split_checkers(result.checkers)[1], called_helpers(result.checkers)
    view.print(
        count_line(
            result.checkers,
            name_helpers=True,
            note="--verbose prints them" if called and not verbose else "",
        ),
        markup=False,
        soft_wrap=True,
    )
    for name, src in result.checkers.items():
        if name not in helpers or (
            verbose and name in called
        ):  # a helper nothing calls is not printed
            # to a file or a pipe, the code as it is (Syntax would cut lines at the console's width)
            view.print(
                Syntax(src, "python", theme="ansi_dark", word_wrap=True)
                if view.is_terminal
                else src.rstrip("\n"),
                markup=False,
                highlight=False,
                soft_wrap=not view.is_terminal,
            )
    if (
        result.plan_was_done
    ):  # the last attempt found its goal held: what is listed is what the attempts executed
        view.rule(
            f"steps executed over the {result.attempts} attempts (the last found the goal already done)"
        )
    else:  # an earlier attempt's plan is labelled as such, never shown as the last attempt's own
        view.rule(
            f"grounded plan{_from_attempt(result.plan_attempt, result.attempts, 'found no plan') or last}"
        )
    for i, a in enumerate(result.plan, 1):
        view.print(f"{i}. {a}", markup=False)
    if (
        not result.plan and not result.plan_was_done
    ):  # never an empty heading (a planning failure has no plan)
        view.print(
            "(none: no plan was found)" if not result.success else "(none: nothing to do)",
            markup=False,
        )
    if result.history:
        view.rule("replanning")
        for line in result.history:
            view.print(line, markup=False)
    view.rule("final tree")
    view.print(result.tree_text, markup=False)
    if re.search(r"\b(left|right|behind|front)\b", f"{instruction} {result.sketch}", re.IGNORECASE):
        from owl_bt.report.writer import (
            DIRECTIONS,
        )  # the pictures show the robot's left on their right

        view.print(DIRECTIONS, markup=False, soft_wrap=True)
    if (
        cfg.backend != "sim" and not cfg.execute
    ):  # (say so last too: the account above reads like a real run)
        view.print(
            f"dry run: planned, checked and executed in simulation only; the {cfg.robot} at {cfg.ip} was not "
            "contacted or moved (add --execute to move it)",
            markup=False,
            soft_wrap=True,
        )
    view.print(f"detector: {result.detector_reason}", markup=False)
    if result.success and not result.executed:
        view.print("nothing was moved: the goal already held in the observed scene", markup=False)
    if result.holding and not result.success:
        view.print(
            f"the arm still holds the {result.holding.replace('_', ' ')}: take it from the gripper (or say where "
            "it goes) before the next run",
            markup=False,
        )
    view.print(
        f"attempts: {result.attempts}  continuous samples drawn: {result.samples}  wall: {result.wall_s:.1f} s "
        f"(after {setup_seconds:.1f} s of set-up)  "
        f"tick rate: {result.tick_hz:.0f} Hz ({result.tick.get('busy_hz', 0):.0f} Hz while working)",
        markup=False,
    )
    view.print(f"run folder: {result.run_dir}", markup=False, soft_wrap=True)
    if (
        result.replay_divergences
    ):  # a replay that diverged (a hand-edited folder) says so before any success
        n = result.replay_divergences
        err.print(
            f"owl-bt: not an exact replay: {n} recorded answer{'s' if n > 1 else ''} went to prompts the recording "
            "does not have (the run folder was edited, or the code has changed since)",
            markup=False,
            soft_wrap=True,
        )
    program, late = _no_more_stops(
        result
    )  # a signal while the folder was written or the account printed
    if late:
        done = "the task was done" if result.success else "the task was not done"
        err.print(
            f"owl-bt: stopped by {result.stopped_by} after the run had ended ({done}); its folder is complete: "
            f"{result.run_dir}",
            markup=False,
            soft_wrap=True,
        )
    elif result.interrupted:
        done = (
            " after the task was done" if result.success else ""
        )  # a late signal: the task's state stands
        err.print(
            f"owl-bt: stopped by {result.stopped_by or 'Ctrl-C'}{done}; the arm was stopped first",
            markup=False,
        )
    elif not result.success:
        why = (
            result.detector_reason
            if not result.failure
            else f"{result.failure} (the robot's own account; the task's detector says: {result.detector_reason})"
            if result.judged
            else result.failure
        )
        err.print(f"owl-bt: task not done: {why}", markup=False, soft_wrap=True)
    try:
        if as_json:
            print(json.dumps(result.summary()))
        else:
            print(f"success: {'true' if result.success else 'false'}")
        sys.stdout.flush()
    except (
        BrokenPipeError
    ):  # `run … | head -1`: the reader took what it wanted; the task's exit code stands
        lose_stdout_quietly()
    code = (
        130 if result.interrupted else (0 if result.success else 1)
    )  # a signal always ends in 130
    return code, program


def _from_attempt(made_in: int | None, attempts: int, none: str) -> str:
    """A heading's note when what it shows came from an earlier attempt than the last: '' otherwise."""
    if made_in is None or made_in >= attempts:
        return ""
    return f" (from attempt {made_in}; attempt {attempts}, the last, {none})"


def _no_more_stops(result) -> tuple[bool, bool]:
    """The run's account is printed; (whether this is the `owl-bt` program rather than a test's CliRunner,
    whether a signal came after the tree had ended). Such a signal was held back until now by `owl_bt.cli`
    (`owl_bt.stops.LATE_STOP`); `result` is then marked stopped by it. In the program, a signal from here on is
    ignored: only the last line and the exit are left."""
    import signal

    from owl_bt import cli
    from owl_bt.episode import note_late_stop

    program = signal.getsignal(signal.SIGTERM) is cli._stopped_starting_up
    if program:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
    note_late_stop(result)
    return program, result.stopped_late
