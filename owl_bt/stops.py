"""A stop signal (Ctrl-C, SIGTERM) as the layers that handle one share it: which signal arrived, as
a person says it, and whether the run had already ended when it came.

`trees.runner` sets FINISHING as the ticking tree hands back; from then on a signal must not cost
the finished run its folder, so the program's handler (`owl_bt.cli`) notes it in LATE_STOP and the
run ends in 130 once the folder is whole. STOPPED_BY is the signal that raised the last
KeyboardInterrupt while a run folder was written (`owl_bt.runfolder` names it in its one line).
`owl_bt.runfolder.RunFolder` resets FINISHING and LATE_STOP when a run begins.
"""

from __future__ import annotations

import signal

STOPPED_BY = ""
FINISHING = False
LATE_STOP = ""


def signal_words(signum: int) -> str:
    """'Ctrl-C (SIGINT)', 'SIGTERM', … — which signal arrived, as the one-line messages say it."""
    name = signal.Signals(signum).name if signum in set(signal.Signals) else f"signal {signum}"
    return "Ctrl-C (SIGINT)" if name == "SIGINT" else name
