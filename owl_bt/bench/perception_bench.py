"""`owl-bt perception-bench`: how well the perception pipeline sees the benchmark scenes.

For every (task, seed) the initial scene is built, one head-camera frame is captured and perceived,
and each object is compared with the simulator's ground truth: found and labelled (name and kind),
centroid error (distance between the perceived and true box centres, m) and box size error (the
largest per-axis difference of the box extents in the object's own frame, m). An object counts as
visible when at least VISIBLE_PX pixels of it are in the frame; fewer, it is listed as hidden (inside
a container, occluded) and must be kept, flagged or reported missing — never silently dropped.
Perception time is the pipeline's wall clock per 640×480 frame (rendering excluded), with the CPU
time of the process beside it (on a shared machine the wall clock also counts other programs).
"""

from __future__ import annotations

import json
import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

VISIBLE_PX = 30  # pixels of an object in the frame for it to count as visible
THRESHOLDS = {
    "centroid_median": 0.01,
    "centroid_max": 0.025,
    "size_median": 0.015,
    "time_median": 0.5,
}


@dataclass
class ObjectResult:
    task: str
    seed: int
    name: str
    kind: str
    pixels: int
    found: bool
    labelled: bool
    centroid_err: float | None = None
    size_err: float | None = None
    flags: list[str] = field(default_factory=list)


@dataclass
class SceneResult:
    task: str
    seed: int
    time_s: float
    cpu_s: float
    render_s: float
    failure: str | None
    objects: list[ObjectResult]
    spurious: list[str]


def perceive_scene(
    task_name: str, seed: int, noise: bool = True, unlabelled: bool = False
) -> SceneResult:
    """Build the task's initial scene for `seed`, perceive one frame, compare with ground truth.
    unlabelled: the pipeline gets RGB-D only (`--perception camera-unlabelled`); the frame's
    segmentation is still rendered, to count each object's visible pixels."""
    from owl_bt.episode import sim_camera_pipeline
    from perception.camera import RGBDFrame
    from sim import tasks
    from sim.world import SimWorld

    task = tasks.get(task_name)
    world = SimWorld()
    try:
        task.build(world, seed)
        camera, pipeline = sim_camera_pipeline(
            world, seed, noise, unlabelled=unlabelled, instruction=task.instruction
        )
        camera = getattr(camera, "camera", camera)  # the labelled frame, for the ground truth
        pipeline.prepare(
            b.spec.kind for b in world.bodies.values()
        )  # models load at start-up, not per frame
        t0 = time.perf_counter()
        frame = camera.capture()
        t1, c1 = time.perf_counter(), time.process_time()
        seen = RGBDFrame(frame.rgb, frame.depth, frame.intrinsics, frame.extrinsics)
        res = pipeline.perceive(seen if unlabelled else frame)
        t2, c2 = time.perf_counter(), time.process_time()
        truth = world.object_states()
        ids = {n: b.id for n, b in world.bodies.items()}
    finally:
        world.close()
    objs = []
    for name, gt in truth.items():
        if name == "table":
            continue
        px = int((frame.seg == ids[name]).sum())
        got = res.objects.get(name)
        r = ObjectResult(
            task_name,
            seed,
            name,
            gt.kind,
            px,
            got is not None,
            got is not None and got.state.kind == gt.kind,
        )
        if got is not None:
            r.centroid_err = math.dist(got.state.pose.position, gt.pose.position)
            r.size_err = max(abs(a - b) for a, b in zip(got.state.size, gt.size, strict=True))
            r.flags = list(got.flags)
        elif name in res.unmeasured:
            r.flags = ["labelled, too few points: reported missing"]
        objs.append(r)
    spurious = [
        n for n, o in res.objects.items() if o.source in ("colour", "primitive") and n not in truth
    ]
    return SceneResult(task_name, seed, t2 - t1, c2 - c1, t1 - t0, res.failure, objs, spurious)


def summarise(scenes: list[SceneResult]) -> dict:
    """Per-task and overall figures, and whether each threshold (THRESHOLDS, m and s) holds."""
    rows = {}
    for task in dict.fromkeys(s.task for s in scenes):
        rows[task] = _figures([s for s in scenes if s.task == task])
    overall = _figures(scenes)
    checks = {
        "centroid_median": overall["centroid_median"] <= THRESHOLDS["centroid_median"],
        "centroid_max": overall["centroid_max"] <= THRESHOLDS["centroid_max"],
        "size_median": overall["size_median"] <= THRESHOLDS["size_median"],
        "time_median": overall["time_median"] <= THRESHOLDS["time_median"],
        "visible_found_and_labelled": overall["visible_found"]
        == overall["visible"]
        == overall["visible_labelled"],
        "hidden_not_dropped": overall["hidden_dropped"] == 0,
        "no_failures": overall["failures"] == 0,
    }
    return {
        "tasks": rows,
        "overall": overall,
        "thresholds": THRESHOLDS,
        "checks": checks,
        "passed": all(checks.values()),
    }


def _figures(scenes: list[SceneResult]) -> dict:
    objs = [o for s in scenes for o in s.objects]
    vis = [o for o in objs if o.pixels >= VISIBLE_PX]
    hidden = [o for o in objs if o.pixels < VISIBLE_PX]
    cerr = [o.centroid_err for o in vis if o.centroid_err is not None]
    serr = [o.size_err for o in vis if o.size_err is not None]
    times = [s.time_s for s in scenes]
    return {
        "scenes": len(scenes),
        "visible": len(vis),
        "visible_found": sum(o.found for o in vis),
        "visible_labelled": sum(o.labelled for o in vis),
        "hidden": len(hidden),
        "hidden_found": sum(o.found for o in hidden),
        "hidden_missing": sum(not o.found and bool(o.flags) for o in hidden),
        "hidden_dropped": sum(not o.found and not o.flags for o in hidden),
        "centroid_median": statistics.median(cerr) if cerr else float("nan"),
        "centroid_max": max(cerr, default=float("nan")),
        "size_median": statistics.median(serr) if serr else float("nan"),
        "size_max": max(serr, default=float("nan")),
        "time_median": statistics.median(times) if times else float("nan"),
        "time_max": max(times, default=float("nan")),
        "cpu_median": statistics.median(s.cpu_s for s in scenes) if scenes else float("nan"),
        "render_median": statistics.median(s.render_s for s in scenes) if scenes else float("nan"),
        "spurious": sum(len(s.spurious) for s in scenes),
        "failures": sum(s.failure is not None for s in scenes),
    }


def render_markdown(data: dict) -> str:
    """The summary as a markdown table (cm and s)."""
    head = (
        "| task | scenes | visible found/labelled | hidden (found, missing, dropped) | centroid cm median / max | "
        "size cm median / max | time s median / max | CPU s median | spurious | failures |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for name, f in [*data["tasks"].items(), ("**overall**", data["overall"])]:
        lines.append(
            f"| {name} | {f['scenes']} | {f['visible_found']}/{f['visible_labelled']} of {f['visible']} | "
            f"{f['hidden']} ({f['hidden_found']}, {f['hidden_missing']}, {f['hidden_dropped']}) | "
            f"{f['centroid_median'] * 100:.2f} / {f['centroid_max'] * 100:.2f} | {f['size_median'] * 100:.2f} / "
            f"{f['size_max'] * 100:.2f} | {f['time_median']:.3f} / {f['time_max']:.3f} | {f['cpu_median']:.3f} | {f['spurious']} | "
            f"{f['failures']} |"
        )
    t = data["thresholds"]
    checks = ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in data["checks"].items())
    return (
        head
        + "\n".join(lines)
        + f"\n\nThresholds: centroid ≤ {t['centroid_median'] * 100:.1f} cm median, ≤ "
        f"{t['centroid_max'] * 100:.1f} cm max; size ≤ {t['size_median'] * 100:.1f} cm median; time ≤ "
        f"{t['time_median']} s median. Checks: {checks}.\n"
    )


def run(
    task_names: list[str],
    seeds: list[int],
    noise: bool = True,
    out: Path | None = None,
    on_scene=None,
    unlabelled: bool = False,
) -> dict:
    """Perceive every (task, seed) scene; returns the summary (and writes perception_bench.json and
    .md into `out` when given, plus per-object records). Ctrl-C stops it: the scenes perceived so far
    are summarised and written, with `interrupted` true."""
    scenes = []
    interrupted = False
    try:
        for t in task_names:
            for s in seeds:
                scenes.append(perceive_scene(t, s, noise, unlabelled))
                if on_scene is not None:
                    on_scene(scenes[-1])
    except KeyboardInterrupt:
        interrupted = True
    data = {**summarise(scenes), "interrupted": interrupted}
    if out is not None:
        records = [asdict(o) for sc in scenes for o in sc.objects]
        write_results(
            out,
            json.dumps({**data, "objects": records}, indent=1, default=_num),
            render_markdown(data),
        )
    return data


def write_results(out: Path, json_text: str, md_text: str) -> None:
    """perception_bench.json and .md in `out`, each written whole or not at all (temporary file,
    then rename). Raises DiskFullError for lack of space, UsageError when `out` cannot be written."""
    from owl_bt.bench.summary import write_atomic
    from owl_bt.errors import UsageError, disk_error

    try:
        out.mkdir(parents=True, exist_ok=True)
        write_atomic(out / "perception_bench.json", json_text)
        write_atomic(out / "perception_bench.md", md_text)
    except OSError as exc:
        raise disk_error(exc, out) or UsageError(
            f"cannot write the results in {out}: {exc.strerror}"
        ) from None


def _num(v):
    return v.item() if isinstance(v, np.generic) else str(v)
