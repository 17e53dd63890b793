"""One simulated run, end to end: build the task's scene, wire the services, tick the executive,
judge the outcome with the task's detector, and write the run folder."""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from owl_bt import stops
from owl_bt.episode_config import EpisodeConfig, same_words, validate
from owl_bt.errors import INFEASIBLE, OwlError, UsageError
from owl_bt.faults import FaultInjector, FaultyBackend, FaultyPerception, parse_faults
from owl_bt.language.backends import make_vlm
from owl_bt.report.final_state import final_rows
from owl_bt.runfolder import RunFolder
from perception.source import SimStateSource
from sim import tasks
from sim.camera import render, save_png
from sim.video import ExecutionVideo
from sim.world import SimWorld
from skills.backend import ArmFault
from skills.guard import SafetyGuard
from skills.guarded import GuardedBackend
from skills.hardware import TwinBackend, open_hardware
from skills.registry import load_skills
from skills.sim_backend import SimArmBackend
from trees.runner import run_tree
from trees.services import Services


@dataclass
class EpisodeResult:
    success: bool
    declared_success: bool
    detector_reason: str
    attempts: int
    wall_s: float
    samples: int
    plan: list[str]
    sketch: str
    checkers: dict[str, str]
    tree_text: str
    tick_hz: float
    run_dir: Path
    history: list[str] = field(default_factory=list)
    executed: list[str] = field(default_factory=list)
    failure: str | None = None
    interrupted: bool = False
    model_s: float = 0.0
    skeletons: int = 0  # task-plan skeletons handed to refinement
    queries: int = 0  # model (VLM) queries
    guard_rejections: int = 0  # commands the safety guard refused (target: 0)
    faults: dict | None = (
        None  # injected faults: spec, seed, counts per kind, every fault that fired
    )
    tick: dict = field(default_factory=dict)  # tick timing (trees.runner.TickStats)
    judged: bool = (
        True  # a task's detector judged this goal (False: a user scene or a goal of one's own)
    )
    stopped_by: str = (
        ""  # the signal that stopped the run: 'Ctrl-C (SIGINT)', 'SIGTERM' ('' when none did)
    )
    stopped_late: bool = (
        False  # that signal came after the tree had ended (nothing was moving; the folder is whole)
    )
    plan_was_done: bool = False  # the last attempt's plan was empty (its goal held): `plan` is then the steps executed
    holding: str | None = (
        None  # what the arm still held when the run ended (a failed run may leave it so)
    )
    sketch_attempt: int | None = (
        None  # the attempt `sketch` and `checkers` came from (a later one may make none)
    )
    plan_attempt: int | None = (
        None  # the attempt `plan` came from (None when it is the steps executed)
    )
    replay_divergences: int = (
        0  # --replay: recorded answers given to prompts the recording does not have
    )

    def summary(self) -> dict:
        extra = {"faults": self.faults} if self.faults else {}
        return {**self._summary(), "replans": max(0, self.attempts - 1), "tick": self.tick, **extra}

    def _summary(self) -> dict:
        return {
            "success": self.success,
            "declared_success": self.declared_success,
            "attempts": self.attempts,
            "wall_s": round(self.wall_s, 3),
            "samples": self.samples,
            "plan": self.plan,
            "model_s": round(self.model_s, 3),
            "tick_hz": round(self.tick_hz, 1),
            "skeletons": self.skeletons,
            "queries": self.queries,
            "guard_rejections": self.guard_rejections,
            "executed": self.executed,
            "detector": self.detector_reason,
            "failure": self.failure,
            "run_dir": str(self.run_dir),
            "interrupted": self.interrupted,
            "holding": self.holding,
            **({"replay_divergences": self.replay_divergences} if self.replay_divergences else {}),
        }


def run_episode(cfg: EpisodeConfig, on_tick=None) -> EpisodeResult:
    task = validate(cfg)
    from owl_bt.language import sandbox_client

    sandbox_client.shared().prestart()  # the checker worker's imports overlap building the scene
    skills = load_skills()
    folder = RunFolder(cfg.out, cfg.instruction)
    with folder.writing():  # a full disk: the unfinished folder is removed, one DiskFullError line
        return _run_in(cfg, task, skills, folder, on_tick)


def _run_in(cfg: EpisodeConfig, task, skills, folder: RunFolder, on_tick) -> EpisodeResult:
    world = SimWorld(gui=cfg.gui, robot=cfg.robot)
    guard: SafetyGuard | None = None
    hardware: TwinBackend | None = None
    try:
        try:
            task.build(world, cfg.seed)
        except (
            OwlError,
            ValueError,
            TypeError,
        ) as exc:  # a scene that cannot be built: a usage error
            world.close()
            folder.discard()
            reason = (
                exc.reason if isinstance(exc, OwlError) else f"the scene cannot be built: {exc}"
            )
            raise UsageError(reason) from None
        guard = SafetyGuard(robot=cfg.robot, speed=cfg.speed)
        inner = SimArmBackend(world, realtime=cfg.gui)
        robot_setup = cfg.setup.robot if cfg.setup is not None else None
        login = (robot_setup.username, robot_setup.password()) if robot_setup else ("admin",) * 2
        if cfg.backend != "sim" and cfg.execute:
            try:
                hardware = TwinBackend(
                    open_hardware(
                        cfg.backend,
                        cfg.ip,
                        guard,
                        *login,
                        robot=cfg.robot,
                        clear_faults=cfg.clear_faults,
                    ),
                    inner,
                )
            except (
                ArmFault
            ) as exc:  # a missing vendor library or an arm that does not answer: nothing moved
                folder.discard()
                raise UsageError(str(exc)) from None
        fault_spec = parse_faults(cfg.faults, cfg.fault_seed)
        injector = (
            FaultInjector(fault_spec, world, inner, cfg.seed, log=folder.log.info)
            if fault_spec
            else None
        )
        arm = FaultyBackend(inner, injector) if injector else inner
        backend = GuardedBackend(
            hardware or arm, guard, log=folder.log.info, confirm=cfg.confirm if hardware else None
        )
        vlm = make_vlm(cfg.vlm, (task.oracle_sketch, task.oracle_checkers))
        try:
            perception = make_perception(
                cfg.perception,
                world,
                inner,
                cfg.seed,
                cfg.camera,
                camera_pose(cfg, world),
                cfg.instruction,
                cfg.record_frames,
                vlm if getattr(vlm, "name", "") == "openai" else None,  # a model names marks
            )
        except OSError as exc:  # a camera that cannot be opened: nothing moved
            folder.discard()
            raise UsageError(f"--camera {cfg.camera}: {exc}") from None
        if injector is not None:
            perception = FaultyPerception(perception, injector)
        perception.out_dir = folder.path  # the perceive subtree writes perception.png there
        services = Services(
            backend=backend,
            perception=perception,
            vlm=vlm,
            skills=skills,
            rng=np.random.default_rng(cfg.seed),
            budget=cfg.budget,
            max_skeletons=cfg.skeletons,
            plan_time=cfg.plan_time,
            log=folder.log.info,
            on_step=_after_step(task, world, injector),
            on_step_start=injector.step_started if injector else (lambda action, commands: None),
            ask=cfg.ask,
        )
        scene_file = (
            folder.keep_scene(cfg.scene) if cfg.scene is not None else {}
        )  # what --replay checks
        folder.log.info(
            "start",
            instruction=cfg.instruction,
            task=task.name,
            seed=cfg.seed,
            vlm=cfg.vlm,
            perception=cfg.perception,
            camera=cfg.camera,
            robot=cfg.robot,
            backend=cfg.backend,
            speed=cfg.speed,
            dry_run=cfg.backend != "sim" and not cfg.execute,
            method=cfg.method,
            budget=cfg.budget,
            skeletons=cfg.skeletons,
            max_attempts=cfg.max_attempts,
            plan_time=cfg.plan_time,
            **scene_file,
            **({"faults": fault_spec.to_dict()} if fault_spec else {}),
        )
        save_png(render(world.cid).rgb, str(folder.path / "initial.png"))
        start_truth = world.ground_truth()
        t0 = time.monotonic()
        video = ExecutionVideo(world)
        log3d = _rerun_log(cfg, folder, world, perception)
        ticks = on_tick if log3d is None else _both(on_tick, log3d.on_tick)
        try:
            with (
                video if _video_wanted() else contextlib.nullcontext(),
                log3d.executing() if log3d is not None else contextlib.nullcontext(),
            ):
                res = run_tree(services, cfg.instruction.strip(), cfg.max_attempts, ticks)
        finally:
            if log3d is not None:
                log3d.close()
        wall = time.monotonic() - t0
        _save_video(video, folder)
        holding = _held_now(backend)
        world.settle(0.3)
        verdict = task.detect(world) if task.detect else None
        ended = final_rows(start_truth, world.ground_truth(), holding)
        save_png(render(world.cid).rgb, str(folder.path / "final.png"))
    finally:
        world.close()
        if guard is not None:
            guard.close()
        if hardware is not None:
            hardware.close()
    board = res.blackboard
    executed = list(board.get("executed") or [])
    _refuse_unknown_object(board, res, executed, folder)
    plan = board["plan"].actions() if board.get("plan") else []
    plan_was_done = not plan and bool(executed)
    plan = plan or executed  # the last attempt found the goal already done: report what was done
    constraints = board.get("constraints")
    declared = res.status.name == "SUCCESS"
    last_failure = board.get("failure") or board.get("interruption")
    judged = verdict is not None
    if cfg.backend != "sim" and not cfg.camera.startswith("sim"):
        # a hardware arm seen by a real (or recorded) camera: the twin is no witness of the table
        judged = False
        verdict = tasks.Verdict(
            declared,
            "judged from the camera: the goal's checkers on its look after the last step (the "
            "simulated twin is not consulted)",
        )
    elif verdict is None:  # a user scene: nothing to judge by but the robot's own account
        verdict = tasks.Verdict(
            declared, "no success detector for a user scene; success is the robot's own judgement"
        )
    elif not same_words(cfg.instruction, task.instruction) and cfg.vlm != "oracle":
        # a goal of the person's own on a task's scene: the task's detector judges the task's goal, not this
        # one (the oracle answers the task's goal whatever the words)
        judged = False
        verdict = tasks.Verdict(
            declared,
            "success is the robot's own judgement: this goal is your own, and the task's "
            f"detector judges only the task's instruction (of which it says: {verdict.reason})",
        )
    success = declared and verdict.success
    if judged and getattr(
        task, "impossible", False
    ):  # done right: an honest "cannot", and nothing disturbed
        said = last_failure.line() if last_failure and not declared else ""
        success = INFEASIBLE in said and verdict.success
    result = EpisodeResult(
        success=success,
        declared_success=declared,
        detector_reason=verdict.reason,
        attempts=res.attempts,
        wall_s=wall,
        samples=services.counters["samples"],
        plan=plan,
        sketch=constraints.sketch.text() if constraints else "",
        checkers=dict(constraints.checkers.sources) if constraints else {},
        tree_text=res.tree_text,
        tick_hz=res.tick_hz,
        run_dir=folder.final,
        history=list(board.get("history") or []),
        executed=executed,
        plan_was_done=plan_was_done,
        failure=(
            f"stopped by {res.stopped_by or 'Ctrl-C'} (the arm was stopped first)"
            if res.interrupted
            else last_failure.line()
            if last_failure and not declared
            else None
        ),
        interrupted=res.interrupted,
        judged=judged,
        model_s=services.counters["model_s"],
        skeletons=services.counters["skeletons"],
        queries=services.counters["queries"],
        guard_rejections=guard.rejections,
        faults=(
            {**fault_spec.to_dict(), "counts": injector.counts(), "injected": injector.injected}
            if injector is not None
            else None
        ),
        tick=res.tick.to_dict(),
        stopped_by=res.stopped_by,
        holding=holding,
        sketch_attempt=board.get("constraints_attempt") if constraints else None,
        plan_attempt=board.get("plan_attempt") if board.get("plan") else None,
        replay_divergences=getattr(services.vlm, "divergences", 0),
    )
    if result.replay_divergences:
        folder.log.warning("replay_diverged", answers=result.replay_divergences)
    note_late_stop(result)
    folder.write_json(
        "plan.json",
        {
            "instruction": cfg.instruction,
            "task": task.name,
            "seed": cfg.seed,
            **scene_file,
            "plan": plan,
            "sketch": result.sketch,
            "checkers": result.checkers,
            "steps": [
                {
                    "action": str(s.op),
                    "samples": s.samples,
                    "params": {k: _jsonable(v) for k, v in s.params.items()},
                }
                for s in (board["plan"].refinement.steps if board.get("plan") else [])
            ],
            "failures": [f.to_dict() for f in (board.get("failures") or [])],
            "result": result.summary(),
        },
    )
    if services.transcripts:
        folder.write_json(
            "transcript.json", services.transcripts
        )  # one list of messages per attempt
    folder.write_text("tree.txt", res.tree_text)
    folder.log.info(
        "final_state",
        objects=ended,
        source="the simulator"
        if cfg.backend == "sim"
        else "the simulated twin of the arm, not a camera's view of the real scene",
    )
    folder.log.info("end", **result.summary())
    result.run_dir = folder.finish()
    return result


def note_late_stop(result: EpisodeResult) -> None:
    """A signal that came after the tree had ended (`owl_bt.cli` holds it back while the run is judged and
    its folder written, `stops.LATE_STOP`): the run is marked stopped by it; what it did stands."""
    if stops.LATE_STOP and not result.interrupted:
        result.interrupted, result.stopped_by, result.stopped_late = True, stops.LATE_STOP, True
        result.failure = (
            result.failure
            or f"stopped by {stops.LATE_STOP} after the run had ended (the arm was still)"
        )


def _refuse_unknown_object(board, res, executed: list[str], folder: RunFolder) -> None:
    """A first attempt that ended because the instruction names an object the scene lacks (and did
    nothing): a usage error naming it and the scene's objects (exit 2), and no run folder."""
    failure = board.get("failure")
    if (
        res.status.name != "SUCCESS"
        and not res.interrupted
        and res.attempts == 1
        and not executed
        and failure is not None
        and failure.observed.unknown_object
    ):
        folder.discard()
        raise UsageError(failure.reason)


def _rerun_log(cfg: EpisodeConfig, folder: RunFolder, world: SimWorld, perception):
    """With --rerun, the 3D log of the run (owl_bt.report.rerun_log) into the folder's run.rrd and a
    listening rerun viewer, tapping the perception source; else None."""
    if not cfg.rerun:
        return None
    from owl_bt.report.rerun_log import RerunLog, viewer_url

    log = RerunLog(folder.path / "run.rrd", world, viewer_url())
    log.tap(perception)
    folder.log.info("rerun", file="run.rrd", viewer=log.viewer)
    return log


def _both(first, second):
    """A tick callback calling `first` (may be None) and then `second` with the tree's root."""

    def tick(root) -> None:
        if first is not None:
            first(root)
        second(root)

    return tick


def _video_wanted() -> bool:
    """Whether to record the execution video: yes unless OWL_BT_VIDEO is off, 0, no or false."""
    return os.environ.get("OWL_BT_VIDEO", "on").strip().lower() not in ("off", "0", "no", "false")


def _save_video(video: ExecutionVideo, folder: RunFolder) -> None:
    """Write the execution's frames as `run.gif` into the run folder (nothing when no frame was taken)
    and log how many frames there were and what they cost: recording them during the run (record_s)
    and drawing them now, after the run's wall clock (render_s)."""
    t0 = time.monotonic()
    data = video.gif()
    if data is None:
        return
    folder.write_bytes("run.gif", data)
    folder.log.info(
        "video",
        frames=len(video.records),
        period_s=round(video.period_s, 3),
        record_s=round(video.record_s, 3),
        render_s=round(video.render_s, 3),
        encode_s=round(time.monotonic() - t0 - video.render_s, 3),
        bytes=len(data),
    )


def _after_step(task, world: SimWorld, injector: FaultInjector | None):
    """After each executed step: the task's detector watches (if it does), then a fault may be injected."""

    def after(action: str) -> None:
        if task.observe:
            task.observe(world)
        if injector is not None:
            injector.step_done(action)

    return after


def _held_now(backend) -> str | None:
    """The object the arm holds now, or None (also when the arm cannot say: a lost connection)."""
    try:
        return backend.state().held
    except Exception:  # noqa: BLE001 — the run's account is written whatever the arm answers
        return None


def camera_pose(cfg: EpisodeConfig, world: SimWorld) -> np.ndarray | None:
    """A real camera's 4×4 camera→world: the setup file's [camera] extrinsics (camera→table) carried
    into the planning world by its [robot] base_pose (`owl_bt.setup_file.world_from_table`); None
    without a setup file's [camera]."""
    if cfg.setup is None or cfg.setup.camera is None:
        return None
    from owl_bt.setup_file import world_from_table

    base = cfg.setup.robot.base_pose if cfg.setup.robot is not None else (0.0,) * 6
    return world_from_table(base, world.robot.spec.mount) @ cfg.setup.camera.matrix()


def make_perception(
    name: str,
    world: SimWorld,
    backend: SimArmBackend,
    seed: int = 0,
    camera: str = "sim",
    extrinsics: np.ndarray | None = None,
    instruction: str = "",
    record: Path | None = None,
    vlm=None,
):
    """The perception source called `name` for a simulated world: 'camera' (RGB-D frames through
    the perception pipeline, objects labelled by the simulator's instance masks), 'camera-unlabelled'
    (the same frames without masks or labels: objects found and named by `perception.label_free`)
    or 'sim-state' (ground truth). `camera`: where the frames come from (`perception.camera_spec`:
    sim, realsense, recorded:<folder>; all but sim are label-free); extrinsics: a RealSense's 4×4
    camera→world (`camera_pose`); instruction: its words name what label-free perception finds;
    record: a folder every frame is also written into (`perception.recorded.RecordingCamera`);
    vlm: a configured model that names label-free segments over numbered marks (None: offline).
    OSError when the camera cannot be opened."""
    if name == "sim-state":
        return SimStateSource(world, held=lambda: backend.held)
    from perception.camera_spec import open_camera, parse_camera
    from perception.source import CameraSource

    spec = parse_camera(camera)
    unlabelled = name == "camera-unlabelled" or spec.kind != "sim"
    sim_camera, pipeline = sim_camera_pipeline(
        world,
        seed,
        unlabelled=unlabelled,
        robot=backend.state,
        instruction=instruction,
        vlm=vlm,
    )
    frames = open_camera(spec, sim=lambda: sim_camera, extrinsics=extrinsics)
    if record is not None:
        from perception.recorded import RecordingCamera

        frames = RecordingCamera(frames, record, robot=backend.state)
    return CameraSource(
        frames,
        pipeline,
        robot=backend.state,
        tcp=world.robot.tcp_pose,
        released=backend.take_released,
    )


def sim_camera_pipeline(
    world: SimWorld,
    seed: int = 0,
    noise: bool = True,
    unlabelled: bool = False,
    robot=None,
    instruction: str = "",
    vlm=None,
):
    """(camera, pipeline) for a simulated world: the head camera (depth noise unless `noise` is False,
    seeded by `seed`) and the pipeline, objects shaped by the object catalogue. Labelled (default):
    objects named by the rendered instance segmentation. unlabelled: the camera gives RGB-D only and
    `perception.label_free` finds and names the objects, the arm masked out by rendering its model at
    the joints `robot()` (a RobotState; default the simulated arm's) measures; `instruction`'s words
    are preferred names; `vlm`, a model that names what is found over numbered marks (None:
    offline naming)."""
    from perception.camera import DepthNoise, SimCamera, Unlabelled
    from perception.detector import ROBOT, SegmentationDetector
    from perception.pipeline import Pipeline
    from perception.shape_library import ShapeLibrary
    from sim import catalog
    from sim.camera import render_head

    def labels() -> dict[int, tuple[str, str]]:
        out = {b.id: (n, b.spec.kind) for n, b in world.bodies.items()}
        out[world.robot.body] = ("robot", ROBOT)
        return out

    global _SHAPES
    if _SHAPES is None:  # shape models are sampled once per process
        _SHAPES = ShapeLibrary(catalog.make)
    camera = SimCamera(
        lambda: render_head(world.cid), labels, noise=DepthNoise() if noise else None, seed=seed
    )
    if not unlabelled:
        return camera, Pipeline(SegmentationDetector(), _SHAPES, catalog.COLOURS, seed=seed)
    detector = label_free_detector(world.robot.spec.name, robot or _sim_arm_state(world), vlm)
    detector.set_instruction(instruction)
    return Unlabelled(camera), Pipeline(detector, _SHAPES, catalog.COLOURS, seed=seed)


def label_free_detector(robot: str, state, vlm=None):
    """A `perception.label_free.LabelFreeDetector` over the whole catalogue, masking out the arm
    `robot` (a name in `sim.robot.ROBOTS`) rendered at the RobotState `state()` returns, or, for a
    frame that carries the arm's state when it was taken (a recording), at that state. vlm: a
    model (`complete(messages, images)`) that names the segments over numbered marks
    (`perception.marks`); None: offline naming."""
    from owl_bt.robot_view import RobotView
    from perception.label_free import LabelFreeDetector, kind_profiles
    from sim import catalog

    global _PROFILES
    if _PROFILES is None:
        _PROFILES = kind_profiles(catalog.make, sorted(k for k in catalog.KINDS if k != "table"))

    def robot_depth(frame):
        arm = frame.robot if frame.robot is not None else state()  # a recorded frame's own arm
        if arm is None:
            return None
        name = arm.arm if frame.robot is not None else robot
        if name not in _VIEWS:  # one private renderer per arm and process
            _VIEWS[name] = RobotView(name)
        return _VIEWS[name].depth(frame.intrinsics, frame.extrinsics, frame.shape, arm)

    marks = None
    if vlm is not None:
        from perception.marks import MarkNamer

        marks = MarkNamer(vlm, [p.kind for p in _PROFILES])
    return LabelFreeDetector(_PROFILES, robot_depth, marks)


def _sim_arm_state(world: SimWorld):
    from owl_bt.state import RobotState

    def state() -> RobotState:
        r = world.robot
        return RobotState(tuple(r.arm_q()), r.opening(), None, r.spec.name)

    return state


_PROFILES = None
_VIEWS: dict = {}
_SHAPES = None


def _jsonable(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, tuple | list):
        return [_jsonable(x) for x in v]
    return v
