"""`owl-bt run --replay RUN_DIR`: what to re-run from a past run folder — its instruction, task, seed,
comparison method, recorded model answers, the faults it injected with their fault seed, and (unless
given) its perception source and arm — so that the replay is the same run. A damaged `plan.json` is
one usage-error line naming the file and the field that is wrong."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from owl_bt import safe_json
from owl_bt.bench.methods import METHODS
from owl_bt.cli.inputs import SCENE_MAX_BYTES, check_regular_file
from owl_bt.errors import UsageError
from owl_bt.language.vlm import parse_spec

Seed = Annotated[int, Field(ge=0)]
PLAN_MAX_BYTES = 256 << 20  # plan.json of the longest runs is a few MiB
TRANSCRIPT_MAX_BYTES = 8 << 20  # prompts and answers: a four-attempt run's is under 100 KiB


class _Faults(BaseModel):
    """plan.json result.faults: what `owl_bt.faults.FaultSpec.to_dict` wrote (counts and the faults
    that fired are kept, unchecked)."""

    model_config = ConfigDict(strict=True, extra="allow")
    spec: Annotated[str, Field(min_length=1)]
    seed: Seed


class _Result(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")
    faults: _Faults | None = None


class _Plan(BaseModel):
    """The fields of plan.json a replay reads (the rest is kept, unchecked)."""

    model_config = ConfigDict(strict=True, extra="allow")
    instruction: Annotated[str, Field(min_length=1)]
    task: Annotated[str, Field(min_length=1)]
    seed: Seed
    result: _Result | None = None
    scene_file: str | None = None  # a run on a scene file: its path and the SHA-256 of its bytes
    scene_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None


@dataclass
class Replayed:
    """What `run --replay` runs: the recorded instruction, task (None: the --scene given), seed, VLM
    spec (`replay:<folder>`), comparison method, and faults (None: none were injected) with their seed."""

    instruction: str
    task: str | None
    seed: int
    vlm: str
    method: str
    faults: str | None
    fault_seed: int
    perception: str | None = None  # the recorded perception source and arm (None: not recorded)
    robot: str | None = None
    limits: dict[str, float] = field(
        default_factory=dict
    )  # recorded budget, skeletons, max_attempts, plan_time (older runs: none)
    camera: str | None = None  # the recorded frames the run read (recorded:<folder>), else None

    def settings(self, given: dict[str, float], defaults: dict[str, float]) -> dict[str, float]:
        """The budget, skeletons, max_attempts and plan_time to replay with: the recorded ones; a value given on the
        command line (not its default) that differs from the recording raises UsageError."""
        out = dict(given)
        for key, value in self.limits.items():
            if given[key] not in (defaults[key], value):
                flag = "--" + key.replace("_", "-")
                raise UsageError(
                    f"--replay re-runs the recorded {flag} ({value}); leave {flag} out"
                )
            out[key] = value
        return out


def read_plan(run_dir: Path) -> _Plan:
    """plan.json of `run_dir`, checked; raises UsageError naming the file and what is wrong with it."""
    path = run_dir / "plan.json"
    check_regular_file(path, "--replay: the plan", PLAN_MAX_BYTES)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"--replay: {run_dir} has no plan.json (an unfinished run?)") from None
    except OSError as exc:
        raise UsageError(f"--replay: cannot read {path}: {exc.strerror}") from None
    try:
        data = safe_json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"--replay: {path} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"--replay: {path} is not valid JSON ({exc.msg}: line {exc.lineno}, column {exc.colno}; "
            "cut short or edited?)"
        ) from None
    except ValueError as exc:  # nested too deeply, a number too long
        raise UsageError(f"--replay: {path} is not valid JSON ({exc}; edited?)") from None
    if not isinstance(data, dict):
        raise UsageError(
            f"--replay: {path} is not a run's plan (a JSON object), it holds a {type(data).__name__}"
        )
    try:
        return _Plan.model_validate(data)
    except ValidationError as exc:
        raise UsageError(f"--replay: {path}: {_why(exc)}") from None


def _why(exc: ValidationError) -> str:
    e = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in e["loc"])
    if e["type"] == "missing":
        return f"field {where!r} is missing"
    msg = e["msg"][:1].lower() + e["msg"][1:]
    return f"field {where!r}: {msg}, got {json.dumps(e.get('input'), default=str)[:60]}"


def replayed(
    run_dir: Path,
    instruction: str,
    task: str | None,
    scene: Path | None,
    vlm: str,
    faults: str | None,
    fault_seed: int | None,
    seed: int = 0,
    method: str = "owl",
    camera_given: bool = False,
) -> Replayed:
    """What to run to re-run `run_dir` with its recorded answers and faults. Raises UsageError when the
    folder is not a finished run with a transcript, its plan.json is damaged, or the command line asks
    for something else than the recording (another instruction, --vlm, or other faults)."""
    if not run_dir.is_dir():
        raise UsageError(f"--replay: {run_dir} is not a run folder")
    if not (run_dir / "transcript.json").is_file():
        raise UsageError(
            f"--replay: {run_dir} has no transcript.json (the run never asked the model)"
        )
    check_regular_file(
        run_dir / "transcript.json", "--replay: the transcript", TRANSCRIPT_MAX_BYTES
    )
    plan = read_plan(run_dir)
    _recorded_values(run_dir, plan)
    rec = recorded_run(
        run_dir
    )  # the comparison method, from the VLM spec its events.jsonl starts with
    if vlm != "replay":  # refused, never ignored: the recording answers
        raise UsageError(
            f"--replay answers from the recording; it cannot be combined with --vlm {vlm}"
        )
    if instruction.strip() and instruction.strip() != plan.instruction.strip():
        raise UsageError("--replay re-runs the recorded instruction; leave the instruction out")
    if task is not None and task != plan.task:
        raise UsageError(f"--replay re-runs the recorded task ({plan.task}); leave --task out")
    if seed not in (0, plan.seed):
        raise UsageError(f"--replay re-runs the recorded seed ({plan.seed}); leave --seed out")
    if method not in ("owl", rec["method"]):
        raise UsageError(
            f"--replay re-runs the recorded method ({rec['method']}); leave --method out"
        )
    if scene is not None and not plan.task.startswith("scene:"):
        raise UsageError(
            f"--replay: the run was on the task {plan.task}, not a scene file; leave --scene out"
        )
    if scene is None and plan.task.startswith("scene:"):
        kept = (
            f" (the run folder keeps a copy: {run_dir / 'scene.toml'})"
            if (run_dir / "scene.toml").is_file()
            else ""
        )
        raise UsageError(
            f"--replay: the run used the scene file {plan.scene_file or plan.task[6:] + '.toml'}; pass it "
            f"with --scene{kept}"
        )
    if scene is not None:
        _same_scene(run_dir, plan, scene)
    recorded = plan.result.faults if plan.result is not None else None
    if faults is not None or fault_seed is not None:
        from owl_bt.faults import parse_faults

        same = (
            recorded is not None
            and (faults is None or parse_faults(faults).text() == recorded.spec)
            and (fault_seed is None or fault_seed == recorded.seed)
        )
        if not same:
            said = (
                f"--faults {recorded.spec} --fault-seed {recorded.seed}"
                if recorded
                else "none: the run injected no faults"
            )
            raise UsageError(
                f"--replay re-applies the recorded faults ({said}); leave --faults and --fault-seed out"
            )
    start = _start_event(run_dir)
    return Replayed(
        plan.instruction,
        task or (None if scene else plan.task),
        plan.seed,
        f"replay:{run_dir.absolute()}",
        rec["method"],
        recorded.spec if recorded else None,
        recorded.seed if recorded else 0,
        *(start.get(k) if isinstance(start.get(k), str) else None for k in ("perception", "robot")),
        _recorded_limits(run_dir, start),
        _recorded_frames(run_dir, start, camera_given),
    )


def _recorded_frames(run_dir: Path, start: dict, given: bool) -> str | None:
    """The `recorded:<folder>` camera the run read, to read again (a replay with the simulated
    camera instead perceived another scene, and a failed run replayed as a success); None for any
    other camera or when --camera is given. UsageError when that folder is gone."""
    camera = start.get("camera")
    if given or not isinstance(camera, str) or not camera.startswith("recorded:"):
        return None
    folder = Path(camera.removeprefix("recorded:"))
    if not folder.is_dir():
        raise UsageError(
            f"--replay: {run_dir} read the recorded frames in {folder}, which is no folder now; "
            "give --camera (e.g. --camera sim) to replay it with another camera"
        )
    return camera


def _recorded_values(run_dir: Path, plan: _Plan) -> None:
    """The recorded instruction and faults checked as a command line's are, a problem named as plan.json's
    (a damaged fault spec is not blamed on --faults, which was not given, nor a damaged instruction
    on the command line)."""
    from owl_bt.faults import parse_faults
    from owl_bt.plain_text import MAX_INSTRUCTION

    path = run_dir / "plan.json"
    if len(plan.instruction) > MAX_INSTRUCTION:
        raise UsageError(
            f"--replay: {path} records an instruction of {len(plan.instruction)} characters; no run takes "
            f"more than {MAX_INSTRUCTION} (damaged?)"
        )
    faults = plan.result.faults if plan.result is not None else None
    if faults is not None:
        try:
            parse_faults(faults.spec, faults.seed)
        except UsageError as exc:
            raise UsageError(
                f"--replay: {path} records faults no run can have ({exc.reason}); damaged?"
            ) from None


def _recorded_limits(run_dir: Path, start: dict) -> dict[str, float]:
    """The budget, skeletons, max_attempts and plan_time the `start` event recorded (those it has: older
    runs have none); one no run can have (a budget of -3 or 10^8) is damage, refused naming the file,
    never replaced by the default nor blamed on an option that was not given."""
    from owl_bt.episode_config import MAX_ATTEMPTS, MAX_BUDGET, MAX_SKELETONS

    ranges = {
        "budget": (1, MAX_BUDGET),
        "skeletons": (1, MAX_SKELETONS),
        "max_attempts": (1, MAX_ATTEMPTS),
        "plan_time": (0.01, 86_400.0),
    }
    out: dict[str, float] = {}
    for key, (lo, hi) in ranges.items():
        if key not in start:
            continue
        v = start[key]
        number = type(v) is int or (key == "plan_time" and type(v) is float)
        if not number or not lo <= v <= hi:
            raise UsageError(
                f"--replay: {run_dir / 'events.jsonl'} records {key} = {str(v)[:40]}, which no run has "
                f"(from {lo:g} to {hi:g}); is its first line damaged?"
            )
        out[key] = float(v) if key == "plan_time" else v
    return out


def _start_event(run_dir: Path) -> dict:
    """The `start` event events.jsonl begins with ({} when it cannot be read: an older or hand-made folder)."""
    try:
        with open(run_dir / "events.jsonl", encoding="utf-8") as f:
            start = safe_json.loads(f.readline())
    except (OSError, ValueError):
        return {}
    return start if isinstance(start, dict) and start.get("event") == "start" else {}


def _same_scene(run_dir: Path, plan: _Plan, scene: Path) -> None:
    """Raise UsageError unless `scene` holds the same bytes as the scene file the run used (the SHA-256
    in its plan.json); the line names the file the run used and the first line that differs from the
    copy the run folder keeps (`scene.toml`)."""
    import difflib
    import hashlib

    from owl_bt.runfolder import SCENE_COPY

    if plan.scene_sha256 is None:
        raise UsageError(
            f"--replay: {run_dir / 'plan.json'} does not record the scene file the run used (no "
            f"scene_sha256), so {scene} cannot be checked to be the same scene"
        )
    try:
        given = scene.read_bytes()
    except OSError as exc:
        raise UsageError(f"--replay: cannot read the scene file {scene}: {exc.strerror}") from None
    if hashlib.sha256(given).hexdigest() == plan.scene_sha256:
        return
    used = Path(plan.scene_file or f"{plan.task[6:]}.toml")
    same_path = scene.absolute() == used or scene.resolve() == used.resolve()
    what = (
        f"the scene file {scene} was edited since the run"
        if same_path
        else f"{scene} is not the scene file the run used ({used})"
    )
    try:
        check_regular_file(
            run_dir / SCENE_COPY, "--replay: the scene's copy", SCENE_MAX_BYTES
        )  # not a FIFO …
        kept = (run_dir / SCENE_COPY).read_bytes()
    except (OSError, UsageError):
        kept = None
    line = ""
    if kept is not None and hashlib.sha256(kept).hexdigest() == plan.scene_sha256:
        before = kept.decode("utf-8", "replace").splitlines()
        now = given.decode("utf-8", "replace").splitlines()
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
            None, before, now, autojunk=False
        ).get_opcodes():
            if tag != "equal":
                was = before[i1].strip()[:60] if i1 < i2 else "no such line"
                is_ = now[j1].strip()[:60] if j1 < j2 else "gone"
                line = f": line {j1 + 1} is {is_!r}, the run's had {was!r}"
                break
    what += (
        line
        or f" (SHA-256 {plan.scene_sha256[:12]}… then, {hashlib.sha256(given).hexdigest()[:12]}… now)"
    )
    raise UsageError(
        f"--replay: {what}; a replay needs the scene the run used (its copy: {run_dir / SCENE_COPY})"
    )


def recorded_run(run_dir: Path) -> dict:
    """{'instruction', 'task', 'seed', 'method'} of a past run folder (plan.json, and the comparison
    method from the VLM spec its events.jsonl starts with), for `owl-bt run --replay`; raises
    UsageError when the folder is not a finished run with a transcript, or its record of the method
    is missing or damaged (a replay under another method than the recorded one is not the same run)."""
    if not run_dir.is_dir():
        raise UsageError(f"--replay: {run_dir} is not a run folder")
    if not (run_dir / "transcript.json").is_file():
        raise UsageError(
            f"--replay: {run_dir} has no transcript.json (the run never asked the model)"
        )
    try:
        plan = safe_json.loads((run_dir / "plan.json").read_text(encoding="utf-8"))
        rec = {
            "instruction": str(plan["instruction"]),
            "task": str(plan["task"]),
            "seed": int(plan["seed"]),
            "method": "owl",
        }
    except FileNotFoundError:
        raise UsageError(f"--replay: {run_dir} has no plan.json (an unfinished run?)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"--replay: cannot read {run_dir / 'plan.json'}: {exc}") from None
    rec["method"] = recorded_method(run_dir / "events.jsonl")
    return rec


def recorded_method(events: Path) -> str:
    """The language method ('owl', 'no-disc', …) a run used: from the VLM spec of the `start` event on the
    first line of its `events.jsonl`. Raises UsageError naming the file when that record is missing or
    damaged; never guesses."""
    why = ""
    try:
        if events.exists() and not events.is_file():  # a FIFO there would block the read for ever
            raise IsADirectoryError(0, "not a regular file")
        with open(events, encoding="utf-8") as f:
            first = f.readline(1 << 20)  # the first event; never a whole huge file
        start = safe_json.loads(first)
    except FileNotFoundError:
        why = "is missing"
    except UnicodeDecodeError:
        why = "does not start with UTF-8 text"
    except OSError as exc:
        why = f"cannot be read ({exc.strerror})"
    except ValueError as exc:
        why = (
            f"has a damaged first line ({getattr(exc, 'msg', exc)})"
            if first.strip()
            else "is empty"
        )
    else:
        if not isinstance(start, dict) or start.get("event") != "start":
            why = "does not start with the run's `start` event"
        elif not isinstance(start.get("vlm"), str):
            why = "has no `vlm` field in its `start` event"
    if not why:
        if (
            start.get("method") in METHODS
        ):  # recorded by name since no-back and no-sample (the VLM spec has neither)
            return start["method"]
        if "method" in start:  # a damaged method is refused, never replayed as owl
            why = f"names an unknown method in its `start` event ({str(start['method'])[:40]!r})"
            raise UsageError(
                f"--replay: {events} {why}: it records the method the run used, so the run cannot be "
                "replayed as it was"
            )
        try:
            return parse_spec(start["vlm"])[0]
        except UsageError:
            why = f"names no known method in its `start` event (vlm {start['vlm'][:40]!r})"
    raise UsageError(
        f"--replay: {events} {why}: it records the method the run used, so the run cannot be replayed "
        "as it was"
    )
