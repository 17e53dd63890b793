"""`owl-bt doctor`: what is installed, and (with --backend and --ip) whether the arm answers.

Each check prints one line: `ok`, `--` (optional and missing: what it would enable and how to get
it) or `FAIL` (needed and broken), with a fix after `fix:`. Besides the simulator and the planners
it checks what runs use (`owl_bt.doctor_checks`): open3d's import, Graphviz, the speech model, the
microphone, and the VLM settings and endpoint (needed once configured).
Hardware checks only read: the Kortex backend opens a session and
reads the joint angles; the UR check uses the RTDE *receive* interface and the gripper's GET
requests only (the control interface would take over the arm's program), so nothing ever moves.
Returns the exit code: 0 when nothing failed, 1 otherwise.
"""

from __future__ import annotations

import importlib
import math
import sys
from collections.abc import Callable

from rich.console import Console

from owl_bt import doctor_checks as more
from owl_bt.errors import UsageError


def _version(module: str) -> str:
    mod = importlib.import_module(module)
    return str(getattr(mod, "__version__", "") or "installed")


def _robot_models() -> str:
    import pybullet as p

    from sim.robot import ROBOTS, RobotModel

    cid = p.connect(p.DIRECT)
    try:
        notes = []
        for name in ROBOTS:
            model = RobotModel.load(cid, robot=name)
            model.reset_arm([0.0] * model.spec.dof)
            notes.append(
                f"{name} ({model.spec.dof} joints, tool {model.tcp_pose()[0][2]:.3f} m up at q = 0)"
            )
        return ", ".join(notes)
    finally:
        p.disconnect(cid)


def _kortex_api() -> str:
    from skills.kortex_backend import import_kortex

    import_kortex()
    return "installed"


def _ur_rtde() -> str:
    from skills.rtde_backend import INSTALL_HINT

    try:
        importlib.import_module("rtde_control")
        importlib.import_module("rtde_receive")
    except ImportError:
        raise RuntimeError(INSTALL_HINT) from None
    from importlib.metadata import version

    return version("ur_rtde")


def _kortex_arm(ip: str) -> str:
    from skills.kortex_backend import KortexBackend

    arm = KortexBackend(ip)
    try:
        q = arm.state().joints
    finally:
        arm.close()
    return "answers; joints (deg) " + ", ".join(f"{math.degrees(v):.1f}" for v in q)


def _ur_arm(ip: str) -> str:
    from skills.rtde_backend import INSTALL_HINT

    try:
        import rtde_receive
    except ImportError:
        raise RuntimeError(INSTALL_HINT) from None
    from sim.quiet import captured
    from skills.rtde_backend import RECEIVE_VARIABLES, said_why

    failure = None
    with captured() as said:  # ur_rtde prints 'connect: …' on stderr beside its exception
        try:
            receive = rtde_receive.RTDEReceiveInterface(ip, -1.0, RECEIVE_VARIABLES)
        except RuntimeError as exc:
            failure = exc
    if failure is not None:
        raise RuntimeError(f"{failure}{said_why(said[0])}") from None
    try:
        q = receive.getActualQ()
        stopped = receive.isProtectiveStopped() or receive.isEmergencyStopped()
    finally:
        receive.disconnect()
    from skills.robotiq_socket import RobotiqSocketGripper

    gripper = RobotiqSocketGripper(ip)
    try:
        status = gripper.get("STA")
    finally:
        gripper.close()
    return (
        f"answers; joints (deg) {', '.join(f'{math.degrees(v):.1f}' for v in q)}"
        f"{'; PROTECTIVE/EMERGENCY STOP active' if stopped else ''}; gripper {'active' if status == 3 else 'not activated'}"
    )


def run_doctor(out: Console, backend: str | None, ip: str | None) -> int:
    """Run the checks, print one line each on `out`; returns 0 when none failed."""
    if backend is not None and backend not in ("kortex", "rtde"):
        raise UsageError(f"unknown hardware backend {backend!r}; available: kortex, rtde")
    if backend is not None and not ip:
        raise UsageError(f"--backend {backend} needs the arm's address: --ip ADDRESS")
    if ip and backend is None:
        raise UsageError("--ip needs --backend kortex or --backend rtde")
    if ip:
        from owl_bt.episode_config import check_ip

        check_ip(ip)
    checks: list[tuple[str, Callable[[], str], bool]] = [
        (
            "python",
            lambda: (
                sys.version.split()[0]
                + ("" if sys.version_info >= (3, 11) else " (3.11 or newer needed)")
            ),
            True,
        ),
        ("pybullet", lambda: _version("pybullet"), True),
        ("ompl (motion planning)", lambda: _version("ompl"), True),
        ("fast downward (task planning)", lambda: _version("up_fast_downward"), True),
        ("robot models", _robot_models, True),
        ("open3d (perception)", more.open3d_import, True),
        ("graphviz (tree.png)", more.graphviz_dot, True),
        ("pocketsphinx model (spoken goals)", more.speech_model, True),
        ("microphone (run --listen)", more.microphone, False),
        *_vlm_checks(),
        ("kortex_api (Kinova Gen3)", _kortex_api, backend == "kortex"),
        ("ur_rtde (UR5)", _ur_rtde, backend == "rtde"),
    ]
    if backend == "kortex":
        checks.append((f"Kinova Gen3 at {ip}", lambda: _kortex_arm(ip), True))
    elif backend == "rtde":
        checks.append((f"UR at {ip}", lambda: _ur_arm(ip), True))
    failed = 0
    for name, check, needed in checks:
        try:
            detail, mark = check(), "ok  "
        except Exception as exc:  # noqa: BLE001 - every failure is reported as one line
            detail = " ".join(str(exc).split()) or type(exc).__name__
            if isinstance(exc, more.Problem) and exc.hint:
                detail += f"; fix: {exc.hint}"
            mark = "FAIL" if needed else "--  "
            failed += needed
        out.print(f"{mark} {name}: {detail}", markup=False, soft_wrap=True)
    return 1 if failed else 0


def _vlm_checks() -> list[tuple[str, Callable[[], str], bool]]:
    """The VLM settings, and once an endpoint is configured, whether it answers (then both needed)."""
    try:
        setup = more.vlm_setup()
    except more.Problem as exc:
        problem = exc

        def broken() -> str:
            raise problem

        return [("VLM settings", broken, True)]
    checks = [("VLM settings", lambda: more.vlm_settings(setup), setup.configured)]
    if setup.configured:
        checks.append(("VLM endpoint", lambda: more.vlm_endpoint(setup), True))
    return checks
