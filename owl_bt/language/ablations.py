"""What the comparison methods (docs/benchmark.md) change on the language side.

- `no-cont`: the sketch only; no checker is asked for. The goal checker only says "something has
  moved from the initial state", so the planner does not take the goal as reached before carrying out the sketch.
- `no-disc`: no plan sketch for the planner: it gets only the goal's last placement of each object
  (the goal literals, as the task planner's targets) and the generated checkers for those.
- `direct`: the model writes symbolic goal literals (prompts/direct.txt); the planner gets them as
  its targets with no generated checker.

The planner takes goal literals as one-action sketch items (it inserts the picks and whatever else
is needed); a planner-side goal-literal hook would make `no-disc` and `direct` literal-exact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from owl_bt.errors import ModelAnswerError
from owl_bt.language.parser import Sketch, SketchAction
from owl_bt.tamp.operators import GroundOp

NO_CHECKERS = (
    "def goal_check0():\n"
    "    # no generated constraint: the goal is the sketch carried out (anything moved)\n"
    "    return any(state.get(n).pose.as_tuple() != init_state.get(n).pose.as_tuple() for n in init_state.movable())\n"
)
LITERAL_OPS = {"on": "place_ontop", "inside": "place_inside", "in": "place_inside"}


def final_placements(sketch: Sketch) -> Sketch:
    """The sketch reduced to the last placement (place_*, pour) of each object, in sketch order."""
    last: dict[str, int] = {}
    for i, a in enumerate(sketch.actions):
        if a.op.name != "pick" and a.op.args:
            last[a.op.args[0]] = i
    keep = sorted(last.values())
    return Sketch(
        tuple(sketch.actions[i] for i in keep), sketch.goal_objects, sketch.goal_description
    )


def parse_goal_literals(
    text: str, ground_ops: Sequence[GroundOp], object_names: Sequence[str]
) -> Sketch:
    """The `Goal:` block of a direct-method answer as one-placement sketch items; raises
    ModelAnswerError naming the first problem."""
    lines = text.replace("`", "").splitlines()
    start = next(
        (
            i
            for i, ln in enumerate(lines)
            if re.match(r"^\W*goal\W*:?\W*$", ln.strip(), re.IGNORECASE)
        ),
        None,
    )
    if start is None:
        raise ModelAnswerError("the answer has no line 'Goal:' followed by goal literals")
    known = {(g.name, g.args) for g in ground_ops}
    actions = []
    for raw in lines[start + 1 :]:
        line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", raw).strip().strip("*_ ")
        if not line:
            continue
        m = re.fullmatch(r"(\w+)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)\.?", line)
        if not m:
            if actions:
                break
            raise ModelAnswerError(
                f"goal line {raw.strip()!r} is not On(<object>, <surface>) or Inside(<object>, <container>)"
            )
        pred, a, b = m.group(1).lower(), m.group(2), m.group(3)
        for name in (a, b):
            if name not in object_names:
                raise ModelAnswerError(f"{m.group(0)} names {name!r}, which is not in the scene")
        op = LITERAL_OPS.get(pred)
        if op is None or (op, (a, b)) not in known:
            raise ModelAnswerError(
                f"{m.group(0)} cannot be reached by any action of the robot in this scene"
            )
        actions.append(SketchAction(GroundOp(op, (a, b)), f"make {m.group(0)} true"))
    if not actions:
        raise ModelAnswerError("the Goal: block has no literals")
    objs = tuple(dict.fromkeys(n for a in actions for n in a.op.args))
    return Sketch(tuple(actions), objs, "; ".join(f"{a.op}" for a in actions))
