"""One lock for the process's standard output and error streams.

`sim.quiet.quiet()` points file descriptors 1 and 2 at /dev/null while Bullet loads a model, and it
does so for the whole process: a progress line printed on the tick thread while the planner's worker
thread loaded a robot into its planning model went to /dev/null ("generate-constraints success" and
"plan running" were missing from a log). `quiet()` holds OUTPUT_LOCK for its window, and the
command line's consoles write under it (owl_bt/report/console.py), so a line waits the fraction of a
second the window lasts instead of being lost.
"""

from __future__ import annotations

import threading

OUTPUT_LOCK = threading.RLock()
