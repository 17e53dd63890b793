"""The hostile table: every snippet of tests/language/hostile/ compiled and evaluated once on the
Berry1 scene, with its outcome (refused by the static check; or False because it raised, ran out of
CPU time, was killed at the wall-clock deadline, or answered something else than a bool) and time.

    PYTHONPATH=$PWD python benchmarks/2026-12-07-sandbox-worker/hostile_table.py > table.md
"""

from __future__ import annotations

import collections
import time
from pathlib import Path

from owl_bt.errors import UnsafeCodeError
from owl_bt.language.codebook import env_from_state
from owl_bt.language.sandbox import CheckerSet
from sim import tasks
from sim.world import SimWorld

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "language" / "hostile"


def header(path: Path) -> tuple[dict[str, str], str]:
    head, lines = {}, path.read_text().splitlines(keepends=True)
    k = 0
    while k < len(lines) and lines[k].startswith("# ") and ":" in lines[k]:
        key, _, value = lines[k][2:].partition(":")
        head[key.strip()] = value.strip()
        k += 1
    return head, "".join(lines[k:])


def outcome(cs: CheckerSet, ok: bool) -> str:
    if ok:
        return "True (not contained!)"
    last = cs.errors[-1] if cs.errors else ""
    if "stopped after" in last:
        return "killed at the deadline"
    if "exceeded" in last:
        return "CPU limit (trace hook)"
    if "not bool" in last:
        return "not a bool"
    if "GuardError" in last:
        return "size guard"
    return "raised: " + last.split(": ", 2)[1] if last.count(": ") >= 2 else "raised"


def main() -> None:
    world = SimWorld()
    tasks.get("berry1").build(world, 0)
    state = world.ground_truth()
    world.close()
    env = env_from_state(state)
    rows = []
    for path in sorted(CORPUS.glob("*.checker")):
        head, source = header(path)
        t0 = time.monotonic()
        try:
            cs = CheckerSet.compile(source, state, env)
        except UnsafeCodeError:
            rows.append((head["class"], head["name"], "refused", time.monotonic() - t0, 0.0))
            continue
        t0 = time.monotonic()
        ok = cs.evaluate("goal_check0", state)
        took = time.monotonic() - t0
        cpu = cs.last_cpu_s if "stopped after" not in (cs.errors or [""])[-1] else float("nan")
        rows.append((head["class"], head["name"], outcome(cs, ok), took, cpu))
    print("| class | snippets | outcomes | max wall s | max worker CPU s |")
    print("|---|---|---|---|---|")
    by = collections.defaultdict(list)
    for r in rows:
        by[r[0]].append(r)
    for cls in sorted(by):
        rs = by[cls]
        kinds = collections.Counter(r[2].split(":")[0] for r in rs)
        cpus = [r[4] for r in rs if r[4] == r[4]]
        print(
            f"| {cls} | {len(rs)} | {', '.join(f'{k} {n}' for k, n in kinds.most_common())} | "
            f"{max(r[3] for r in rs):.2f} | {max(cpus, default=0.0):.3f} |"
        )
    print()
    print("| snippet | class | outcome | wall s |")
    print("|---|---|---|---|")
    for cls, name, what, took, _ in sorted(rows):
        print(f"| {name} | {cls} | {what[:70]} | {took:.3f} |")


if __name__ == "__main__":
    main()
