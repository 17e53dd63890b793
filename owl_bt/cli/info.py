"""`owl-bt tasks`, `owl-bt skills` and `owl-bt doctor`: what the installation has and can reach."""

from __future__ import annotations

import json

import typer

from owl_bt.cli import choices
from owl_bt.cli.base import OwlCommand, app, fail, out
from owl_bt.errors import OwlError


@app.command("tasks", cls=OwlCommand)
def list_tasks(
    every: bool = typer.Option(
        False,
        "--all",
        help="Also the everyday set (stacking, containers, arranging, impossible requests) and the "
        "scaling family, all of which run --task and bench --tasks take.",
    ),
) -> None:
    """List the ten benchmark tasks with their instructions (--all: every task --task takes)."""
    from sim.tasks import TASKS, all_tasks

    listed = all_tasks() if every else TASKS
    width = max(10, *map(len, listed))
    for name, t in listed.items():
        out.print(f"{name:<{width}} {t.instruction}", markup=False)


@app.command("skills", cls=OwlCommand)
def list_skills(
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print one JSON list (one object per skill: name, "
        "signature, params, pre, add, delete, open_world, description, package) "
        "instead of text. Default: text.",
    ),
) -> None:
    """List the registered skills with their operator schemas: typed parameters, preconditions,
    add and delete effects, whether the planner gets a generated checker for it, its description
    for the model, and the package that provides it (entry-point group owl_bt.skills).

    Examples:

      owl-bt skills                                  # pick, place_ontop, …

      owl-bt skills --json | jq -r '.[].signature'   # one per line

    A new skill is a package declaring an owl_bt.skills entry point; see docs/usage.md, "Your own skills"."""
    from owl_bt.skills_cmd import print_skills, skill_records

    try:
        records = skill_records()
    except OwlError as exc:
        raise fail(exc) from None
    if as_json:
        print(json.dumps(records, indent=1))
    else:
        print_skills(out, records)


@app.command(cls=OwlCommand)
def doctor(
    backend: choices.HardwareBackend | None = typer.Option(
        None,
        "--backend",
        case_sensitive=False,
        help="Also check this hardware backend's arm: kortex (Kinova Gen3, "
        "port 10000) or rtde (UR5). Default: none.",
    ),
    ip: str | None = typer.Option(
        None,
        "--ip",
        help="The arm's IP address or host name (needed with --backend), e.g. "
        "192.168.1.10; the arm is never moved.",
    ),
) -> None:
    """Check what runs use (simulation, planners, open3d, Graphviz, speech model and microphone, the VLM
    settings and endpoint, vendor libraries) and whether a hardware arm answers.

    Examples:

      owl-bt doctor                                      # what is installed

      owl-bt doctor --backend kortex --ip 192.168.1.10   # and the Gen3?

      owl-bt doctor --backend rtde --ip 192.168.1.20     # and the UR5?

    One line per check: ok, -- (optional and missing) or FAIL, with a fix. Exit 1 when something
    needed fails. The arm is only asked for its state, never moved. Default: no hardware check."""
    from owl_bt.doctor import run_doctor

    try:
        code = run_doctor(out, backend, ip)
    except OwlError as exc:
        raise fail(exc) from None
    raise typer.Exit(code)
