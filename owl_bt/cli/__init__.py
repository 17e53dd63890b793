"""The `owl-bt` command line: run a goal in simulation, list the tasks and skills, run the benchmarks,
check the installation. One module per command (group): `run`, `bench` (bench, perception-bench),
`info` (tasks, skills, doctor); `base` holds the typer app and the consoles.

Exit codes: 0 success, 1 the robot could not do it, 2 usage error. Errors are one line on stderr.
"""

from __future__ import annotations

import os
import signal
import sys


def _stopped_starting_up(signum: int, frame: object) -> None:
    """Ctrl-C or SIGTERM while the program loads and sets up (before a run's tree ticks, which then
    stops the arm itself; the bench commands take over with `base.stops_handled_here`): nothing has
    moved, so end at once with one line — never an import error or a traceback from the middle of
    loading numpy or open3d. Once a run folder is being set up, the usual KeyboardInterrupt is raised instead
    (the unfinished folder is removed); once the tree has ended, the stop waits for the folder to be whole."""
    stops = sys.modules.get("owl_bt.stops")
    folders = sys.modules.get("owl_bt.runfolder")
    if stops is not None and stops.FINISHING:  # the tree has ended: keep the finished run
        stops.LATE_STOP = stops.LATE_STOP or stops.signal_words(signum)  # `run` ends in 130 later
        return
    if stops is not None and folders is not None and getattr(folders, "LIVE", None):
        # a run folder is being written: the usual way; which signal, for the folder's one line
        stops.STOPPED_BY = stops.signal_words(signum)
        signal.default_int_handler(signum, frame)
    name = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name
    if (
        sys.argv[1:2] == ["run"] and "--json" in sys.argv[2:]
    ):  # as a refused run answers: never an empty stdout
        try:
            os.write(
                _STDOUT,
                f'{{"success": false, "error": "stopped by {name} while setting up", "exit_code": 130}}\n'.encode(),
            )
        except OSError:
            pass
    os.write(_STDERR, f"owl-bt: stopped by {name}\n".encode())
    os._exit(130)


def _reopen_closed_streams() -> None:
    """Point a standard stream the caller closed (`>&-`, `2>&-`) at /dev/null, as if it were sent there:
    with stdout closed, importing py_trees raised on `sys.stdout.encoding` (None); with stderr closed, the
    program would end at its first line, so `run --json 2>&-` would print no JSON."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(
                os.devnull, os.O_WRONLY
            )  # the lowest free descriptor: fd itself, when it is closed
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, "w", closefd=False))  # the process's stream, kept open


_STDERR = 2  # the terminal's stderr, kept: pybullet's import points fd 2 at /dev/null for a moment (sim.quiet)
_STDOUT = 1  # … and its stdout (fd 1 too): where `run --json` answers a stop during set-up
PROGRAM = (
    os.path.basename(sys.argv[0]) == "owl-bt" or sys.argv[0] == "-m"
)  # the program starting, not an import
if PROGRAM:
    _reopen_closed_streams()
    _STDERR = os.dup(2)
    _STDOUT = os.dup(1)
    for _sig in (
        signal.SIGINT,
        signal.SIGTERM,
        signal.SIGHUP,
    ):  # SIGHUP: the terminal closed (ssh dropped)
        signal.signal(_sig, _stopped_starting_up)

import importlib  # noqa: E402  (after the handler: these imports are what takes the time)

import typer  # noqa: E402

from owl_bt.cli.base import app, err, out  # noqa: E402

for _module in (
    "run",
    "info",
    "bench",
    "record",
    "calibrate",
):  # each registers its commands on the app; --help lists them in this order
    importlib.import_module(f"owl_bt.cli.{_module}")

__all__ = ["app", "err", "main", "out"]


def main() -> None:
    """The console script `owl-bt`."""
    for i, arg in enumerate(sys.argv[1:], 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:  # bytes that are not UTF-8, kept by Python as lone surrogates
            shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            print(
                f"owl-bt: argument {i} is not UTF-8 text ('{shown[:60]}'); give goals, names and paths in UTF-8",
                file=sys.stderr,
            )
            sys.exit(2)
    try:
        os.getcwd()
    except (
        FileNotFoundError
    ):  # open3d's MKL then ends the process from C with "Cannot load libOpen3D"
        print(
            "owl-bt: the current folder no longer exists (it was removed); cd into one that does",
            file=sys.stderr,
        )
        sys.exit(2)
    from sim.quiet import quiet

    with quiet():  # pybullet announces its build time from C on first import
        import pybullet  # noqa: F401
    try:
        code = _app()
    except (
        BrokenPipeError
    ):  # the reader went away (`owl-bt tasks | head -1`): nothing more to say to it
        code = _stdout_gone()
        if sys.argv[1:2] in (["tasks"], ["skills"]) or {"--help", "-h"} & set(sys.argv[1:]):
            code = 0  # a listing or a help the reader had enough of did what it was asked (`doctor` had not finished)
    except OSError as exc:  # stdout on a full disk (`> /dev/full`): a stream's write names no file
        from owl_bt.errors import NO_SPACE

        if exc.filename is not None or exc.errno not in NO_SPACE:
            raise
        code = _stdout_gone()
        print(f"owl-bt: {NO_SPACE[exc.errno]} writing the output", file=sys.stderr)
    sys.exit(code)


def _stdout_gone() -> int:
    """Standard output cannot be written: point it at /dev/null (so the interpreter's last flush does not
    fail again with a traceback; `owl_bt.report.console` does it); the exit code, 1."""
    from owl_bt.report.console import lose_stdout_quietly

    lose_stdout_quietly()
    return 1


def _app() -> int:
    """Run the app; its usage errors (a bad option value, an unknown option or command) become one
    line, `owl-bt: <reason>; see <command> --help`, with their exit code (2). `owl-bt` alone prints
    the help (exit 2), as typer does."""
    if len(sys.argv) == 1:
        app()  # no_args_is_help: the help, then SystemExit
    try:
        code = app(standalone_mode=False)
    except typer.Abort:
        print("Aborted!", file=sys.stderr)
        return 1
    except typer.TyperException as exc:  # typer's (vendored click's) ClickException and UsageError
        format_message = getattr(exc, "format_message", None)
        reason = format_message() if format_message is not None else str(exc)
        reason = reason.replace(
            "Value error, ", ""
        )  # typer's value checks word it as pydantic does
        ctx = getattr(exc, "ctx", None)
        see = f"; see {ctx.command_path} --help" if ctx is not None else ""
        line = f"{reason[:1].lower()}{reason[1:].rstrip('.')}{see}"
        code = int(getattr(exc, "exit_code", 2))
        if (
            sys.argv[1:2] == ["run"] and "--json" in sys.argv[2:]
        ):  # as `run --json` answers its own refusals
            from owl_bt.cli.base import print_refusal_json

            print_refusal_json(line, code)  # never an empty stdout
        print(f"owl-bt: {line}", file=sys.stderr)
        return code
    return code if isinstance(code, int) else 0
