"""The offline grounder: the embedded default VLM backend (DESIGN §5).

It reads the same prompts a real model gets (our templates), grounds the task with a vocabulary of
relations and an object-category ontology against the scene's objects, and answers in the same text
format a VLM would — a described scene plus a `Plan:` block, or a python block of checkers — so the
same parsers and sandbox run offline. What it cannot ground it names, with the advice to configure a
VLM endpoint; it never guesses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from owl_bt.errors import GroundingError, UnknownObjectError
from owl_bt.language import vocabulary as V


@dataclass(frozen=True)
class Clause:
    """One grounded goal part: `moved` ends in relation ('ontop' | 'inside') to `target`."""

    moved: str
    relation: str
    target: str


@dataclass(frozen=True)
class SceneObject:
    name: str
    category: str
    colour: str


def _section(prompt: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", prompt, re.DOTALL | re.MULTILINE)
    return m.group(1).strip() if m else ""


def _objects(prompt: str, title: str) -> list[SceneObject]:
    out = []
    for line in _section(prompt, title).splitlines():
        m = re.match(r"^- (\w+) \(category: (\w+)(?:, colour: (\w*))?", line.strip())
        if m:
            out.append(SceneObject(m.group(1), m.group(2), m.group(3) or ""))
    return out


class OfflineGrounder:
    """VLM backend `offline`: deterministic, no network, answers our two prompt kinds."""

    name = "offline"

    def complete(self, messages: list[dict], images: list[bytes] | None = None) -> str:
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        task = _section(prompt, "Task")
        if "## Plan sketch" in prompt:
            objs = _objects(prompt, "Objects and their poses")
            return self._checkers(prompt, ground(task, objs))
        objs = _objects(prompt, "Objects in the scene")
        if "## Goal literals you may use" in prompt:  # the direct method (SPEC §8.1)
            lits = [f"{'On' if c.relation == 'ontop' else 'Inside'}({c.moved}, {c.target})" for c in ground(task, objs)]
            return "Goal:\n" + "\n".join(lits) + "\n"
        ops = set(_section(prompt, "Ground operators you may use").split("\n"))
        return self._sketch(ground(task, objs), {o.strip("- ").strip() for o in ops}, objs)

    def _sketch(self, clauses: list[Clause], ops: set[str], objs: list[SceneObject]) -> str:
        lines, deciding = [], []
        for c in clauses:
            place = "place_ontop" if c.relation == "ontop" else "place_inside"
            for op in (f"pick({c.moved})", f"{place}({c.moved}, {c.target})"):
                if op not in ops:
                    raise GroundingError(f"the robot has no action {op} in this scene (is {c.moved} movable?)")
            where = "onto" if c.relation == "ontop" else "into"
            lines.append(f"pick({c.moved}); grasp the {_words(c.moved)}")
            lines.append(f"{place}({c.moved}, {c.target}); put the {_words(c.moved)} {where} the {_words(c.target)}")
            deciding += [c.moved, c.target]
        goal = " and ".join(
            f"the {_words(c.moved)} is {'on' if c.relation == 'ontop' else 'in'} the {_words(c.target)}" for c in clauses
        )
        deciding = list(dict.fromkeys(deciding))
        scene = ", ".join(o.name for o in objs)
        return (
            f"The scene has: {scene}. What matters: {', '.join(deciding)}. "
            "Nothing in the object list is in the way.\n\nPlan:\n"
            + "\n".join(lines)
            + f"\nachieve_goal({', '.join(deciding)}); {goal}\n"
        )

    def _checkers(self, prompt: str, clauses: list[Clause]) -> str:
        helper = {"ontop": "modify_pose_bounds_to_be_ontop_of_object", "inside": "modify_pose_bounds_to_be_inside_object"}
        body = []
        for i, c in enumerate(clauses):
            body.append(_checker(f"goal_check{i}", helper[c.relation], c))
        for line in _section(prompt, "What to write").splitlines():
            m = re.match(r"^- action_check(\d+): (\w+)\((\w+), (\w+)\)", line.strip())
            if m:
                clause = next((c for c in clauses if c.moved == m.group(3) and c.target == m.group(4)), None)
                if clause is not None:
                    body.append(_checker(f"action_check{m.group(1)}", helper[clause.relation], clause))
                else:
                    body.append(f"def action_check{m.group(1)}():\n    return True\n")
        return "```python\n" + "\n".join(body) + "```\n"


def _checker(fname: str, helper: str, c: Clause) -> str:
    return (
        f"def {fname}():\n"
        f"    b = {helper}(state, env, init_bounds, \"{c.moved}\", \"{c.target}\")\n"
        f"    return position_within_bounds(get_obj_center(state, env, \"{c.moved}\"), b)\n"
    )


def _words(name: str) -> str:
    return name.replace("_", " ")


def _tokens(text: str) -> list[str]:
    text = text.lower().replace("-", " ")
    return re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text)  # words in any script, so unknown ones get named


def _mentions(tokens: list[str], objs: list[SceneObject]) -> list[tuple[int, int, list[str]]]:
    """(start, end, object names) for each phrase naming scene objects, longest match first."""
    aliases: dict[tuple[str, ...], set[str]] = {}
    for o in objs:
        forms = {tuple(o.name.split("_")), tuple(o.category.split("_"))}
        if o.colour:
            forms.add(tuple(o.colour.split("_")) + tuple(o.category.split("_")))
        for f in forms:
            aliases.setdefault(f, set()).add(o.name)
    for cat, members in V.ONTOLOGY.items():
        hit = {o.name for o in objs if o.category in members}
        if hit:
            aliases.setdefault((cat,), set()).update(hit)
    out, i = [], 0
    words = [V.singular(t) for t in tokens]
    while i < len(words):
        for n in (4, 3, 2, 1):
            key = tuple(words[i:i + n])
            if len(key) == n and key in aliases:
                out.append((i, i + n, sorted(aliases[key])))
                i += n
                break
        else:
            i += 1
    return out


def ground(task: str, objs: list[SceneObject]) -> list[Clause]:
    """Clauses for a task over scene objects; raises UnknownObjectError / GroundingError."""
    tokens = _tokens(task)
    if not tokens:
        raise GroundingError("the instruction is empty")
    mentions = _mentions(tokens, objs)
    covered = {k for s, e, _ in mentions for k in range(s, e)}
    rel_at, rel = None, None
    for i in range(len(tokens)):
        for phrase in sorted(V.RELATIONS, key=lambda p: -len(p.split())):
            n = len(phrase.split())
            if i not in covered and " ".join(tokens[i:i + n]) == phrase:
                rel_at, rel = (i, i + n), V.RELATIONS[phrase]
                break
        if rel is not None:
            break
    relation_words = set(range(*rel_at)) if rel_at else set()
    unknown_objects, unknown = [], []
    for i, t in enumerate(tokens):
        w = V.singular(t)
        if i in covered or i in relation_words:
            continue
        if w in V.KNOWN_NOUNS or w in V.ONTOLOGY:
            unknown_objects.append(w)
        elif not (w in V.FILLER or w in V.ACTIONS or w in V.LOCATION_WORDS or w in V.COLOURS or t in V.RELATIONS):
            unknown.append(t)
    names = sorted(o.name for o in objs)
    if unknown_objects:
        raise UnknownObjectError(unknown_objects[0], names)
    if unknown:
        raise GroundingError(
            f"the offline grounder did not understand: {', '.join(repr(u) for u in dict.fromkeys(unknown))}; "
            "rephrase it with the words of a simpler goal (e.g. 'put the X onto the Y')"
        )
    if rel is None:
        raise GroundingError("no placement relation found (e.g. 'onto', 'on', 'into', 'inside')")
    before = [m for m in mentions if m[1] <= rel_at[0]]
    after = [m for m in mentions if m[0] >= rel_at[1]]
    if not before:
        raise GroundingError("the instruction does not say which object to move")
    if not after:
        raise GroundingError("the instruction does not say where to put it")
    targets = after[0][2]
    if len(targets) != 1:
        raise GroundingError(f"'where' is ambiguous: {', '.join(targets)}")
    # every object named before the relation moves ("the apple and the strawberry into the bowl")
    moved = list(dict.fromkeys(n for m in before for n in m[2] if n != targets[0]))
    if not moved:
        raise GroundingError(f"cannot put the {_words(targets[0])} {'on' if rel == 'ontop' else 'in'} itself")
    return [Clause(m, rel, targets[0]) for m in moved]
