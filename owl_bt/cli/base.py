"""The typer app every `owl-bt` command registers on, the two consoles and the one-line error exit.

Exit codes: 0 success, 1 the robot could not do it, 2 usage error. Errors are one line on stderr.
"""

from __future__ import annotations

import typer

from owl_bt.cli.help_format import OwlCommand, OwlGroup
from owl_bt.errors import OwlError
from owl_bt.report.console import make_console

app = typer.Typer(
    cls=OwlGroup,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help=(
        "owl-bt: tell a robot arm what to do in plain words; it plans with generated constraints and a "
        "task-and-motion planner, and a behaviour tree runs it.\n\n"
        "\b\nTry:\n  owl-bt tasks\n"
        '  owl-bt run "put the strawberry onto the light-grey region at the center of the table" --task berry1'
    ),
)
out = (
    make_console()
)  # no wrapping at 80 columns when the output is a pipe or a log (owl_bt/report/console.py)
err = make_console(stderr=True)
__all__ = ["OwlCommand", "app", "err", "fail", "out", "stops_handled_here"]


def print_refusal_json(reason: str, code: int) -> None:
    """`run --json`'s answer to a refused run on stdout: {"success": false, "error": reason, "exit_code": code}."""
    import json
    import sys

    print(json.dumps({"success": False, "error": reason, "exit_code": code}))
    sys.stdout.flush()


def fail(exc: OwlError) -> typer.Exit:
    """Print `exc`'s one-line reason on stderr (as text, never markup); the Exit to raise with its code."""
    err.print(f"owl-bt: {exc.reason}", markup=False, soft_wrap=True)
    return typer.Exit(exc.exit_code)


def stops_handled_here() -> None:
    """From here the command handles Ctrl-C and SIGTERM itself (as KeyboardInterrupt and the default):
    undo the start-up handler of `owl_bt.cli`, which ends the program at once."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
