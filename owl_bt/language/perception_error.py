"""How far an observed object may be from where it really is: the margin the codebook's helpers add
to the regions they test, so a thing that truly meets a relation is not judged to miss it after a
perception error of a few millimetres (an orange resting near a plate's rim failed "well inside"
when its centre was seen 4 mm farther out).

PERCEPTION_ERROR is measured by `owl-bt perception-bench` against the simulator's ground truth over
the ten tasks' scenes (benchmarks/2026-12-07-camera-unlabelled-ur5e/perception_bench_*.json): the
centroid error of the label-free camera pipeline is 3.1 mm at the median and 5.0 mm at the 90th
percentile; of the labelled pipeline 1.8 mm and 2.7 mm (3.2 mm at the 95th). The margin is the
label-free 90th percentile. Larger errors (a half-hidden object, 1.2 cm and more) are not absorbed:
a margin that wide would accept things that are plainly off.
"""

from __future__ import annotations

PERCEPTION_ERROR = 0.005  # m, centroid error of an observed object (see the module's docstring)
