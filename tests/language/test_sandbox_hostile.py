"""A corpus of hostile checker snippets: every one is refused by the static check or contained at
run time (False, recorded, within a bounded time), the state the checkers saw is unchanged, and a
file-system probe shows nothing was written."""

from __future__ import annotations

import os
import time

import pytest

from owl_bt.errors import UnsafeCodeError
from owl_bt.language.codebook import env_from_state
from owl_bt.language.sandbox import CheckerSet

SENTINEL = "owl_sandbox_probe.txt"
DOUBLED = (
    "row = [0.5]\nfor i in range(16):\n    row = row + row\nother = row[0:len(row) - 1] + [1.5]\nrows = [row]\n"
    "for i in range(16):\n    rows = rows + rows\n"
)  # 65,536 references to one 65,536-long list: within the size cap


def fn(body: str, extra: str = "") -> str:
    return extra + "def goal_check0():\n" + "".join(f"    {ln}\n" for ln in body.splitlines())


STATIC = {
    "import": "import os\n" + fn("return True"),
    "from-import": fn(f"from os import system\nsystem('touch {SENTINEL}')\nreturn True"),
    "__import__": fn(f"return __import__('os').system('touch {SENTINEL}') == 0"),
    "subclasses walk": fn("return len(().__class__.__bases__[0].__subclasses__()) > 0"),
    "__builtins__": fn("return __builtins__['open'] is None"),
    "eval": fn("return eval('1') == 1"),
    "exec": fn(f'exec(\'open("{SENTINEL}", "w")\')\nreturn True'),
    "compile": fn("return compile('1', 'x', 'eval') is None"),
    "open for writing": fn(f"open('{SENTINEL}', 'w').write('x')\nreturn True"),
    "with open": fn(f"with open('{SENTINEL}', 'w') as f:\n    pass\nreturn True"),
    "getattr": fn("return getattr(state, '__class__') is None"),
    "globals": fn("return globals() is None"),
    "vars": fn("return vars() is None"),
    "type()": fn("return type(state) is None"),
    "format-string attribute walk": fn(
        "return '{0.__class__.__init__.__globals__}'.format(state) == ''"
    ),
    "format_map": fn("return '{x}'.format_map({'x': 1}) == ''"),
    "f-string": fn("return f'{state.__class__}' == ''"),
    "function globals": fn("return get_obj_center.__globals__ is None"),
    "bound-method self": fn("return state.get.__self__ is None"),
    "generator frame escape": fn(
        "g = (x for x in [1])\nreturn g.gi_frame.f_back.f_globals is None"
    ),
    "code object": fn("return goal_check0.co_code is None"),
    "numpy ctypes": fn("return get_aabb_bounds(state, env, 'strawberry')[0].ctypes is None"),
    "lambda": fn("return (lambda: 1)() == 1"),
    "class": "class A:\n    pass\n" + fn("return True"),
    "while loop": fn("while True:\n    pass"),
    "try/except swallowing the timeout": fn(
        "try:\n    return True\nexcept BaseException:\n    return True"
    ),
    "global statement": fn("global math\nreturn True"),
    "attribute assignment": fn("math.pi = 3\nreturn True"),
    "del": fn("del state\nreturn True"),
    "yield": fn("yield True"),
    "raise": fn("raise SystemExit(0)"),
    "mutating method": fn("state.objects.clear()\nreturn True"),
    "pop an object": fn("d = state.objects\nd.pop('strawberry')\nreturn True"),
    "huge power": fn("return 9 ** 99999999 > 0"),
    "computed power": fn("return 10 ** 3 ** 3 ** 3 > 0"),
    "huge constant": fn("return 99999999 + 1 > 0"),
    "literal repeat": fn("return len([0] * 1000) > 0"),
    "default argument runs at definition": fn(
        "return f()", "def f(x=sum(range(10 ** 4))):\n    return x\n"
    ),
    "top-level call": "print(1)\n" + fn("return True"),
    "big-integer math": fn("return math.factorial(999999) > 0"),
    "async": "async def goal_check0():\n    return True\n",
}

CONTAINED = {
    "recursion bomb": fn("return f()", "def f():\n    return f()\n"),
    "nested loops": fn(
        "x = 0\nfor i in range(10000):\n    for j in range(10000):\n        x += 1\nreturn True"
    ),
    "C-level sum over a huge range": fn("n = 999999 * 999999\nreturn sum(range(n)) > 0"),
    "doubling a list": fn("x = [0]\nfor i in range(60):\n    x = x + x\nreturn True"),
    "repeating a string": fn("s = 'ab'\nn = 999999\nreturn len(s * n * n) > 0"),
    "augmented repeat": fn("x = [1]\nn = 999999\nx *= n\nx *= n\nreturn True"),
    "integer power tower": fn("a = 999999\nfor i in range(50):\n    a = a ** 4\nreturn a > 0"),
    "integer product tower": fn("a = 999999\nfor i in range(60):\n    a = a * a\nreturn a > 0"),
    "replace an object": fn("state.objects['strawberry'] = None\nreturn True"),
    "comprehension bomb": fn("return len([i * j for i in range(10000) for j in range(10000)]) > 0"),
    "max over a huge range": fn("return max(range(10 ** 4 * 10 ** 4 * 10 ** 4)) > 0"),
    "deep recursion with work": fn(
        "return f(0)", "def f(n):\n    return f(n + 1) + sum(range(1000))\n"
    ),
    "printf padding": fn(
        "w = 1000 * 200000\nreturn len('%0*d' % (w, 1)) + len('%0*d' % (w, 1)) > 0"
    ),
    # C-level work the trace cannot stop, each on data within the size cap (break-it, issue 4)
    "round to ten million digits": fn("n = 1000000 * 10\nreturn round(7, -n) >= 0"),
    "sum of lists": fn(
        "n = 1000 * 100\nrow = [0.0 for i in range(n)]\nrows = [row for i in range(300)]\n"
        "return len(sum(rows, [])) > 0"
    ),
    "search of nested lists": fn(DOUBLED + "return other in rows"),
    "count over nested lists": fn(DOUBLED + "return rows.count(other) > 0"),
    "index over nested lists": fn(DOUBLED + "return rows.index(other) > 0"),
    "search one level deeper": fn(
        DOUBLED + "rows2 = rows[0:len(rows) - 1] + [other]\nbig = [rows]\nfor i in range(16):\n"
        "    big = big + big\nreturn rows2 in big"
    ),
    "comparison of nested lists": fn(
        DOUBLED + "rows2 = rows[0:len(rows) - 1] + [other]\nreturn rows < rows2"
    ),
    "chained comparison": fn(
        DOUBLED + "rows2 = rows[0:len(rows) - 1] + [other]\nreturn 0 < 1 < rows == rows2"
    ),
    "max over nested lists": fn(DOUBLED + "return max(rows) is None"),
    "min by a nested key": fn(
        "return min(range(100), key=k) > 0",
        "def k(i):\n" + "".join(f"    {ln}\n" for ln in DOUBLED.splitlines()) + "    return rows\n",
    ),
}


@pytest.mark.parametrize("name", sorted(STATIC))
def test_static_corpus_is_refused(name, berry_world, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnsafeCodeError) as exc:
        CheckerSet.compile(STATIC[name], berry_world, env_from_state(berry_world))
    assert (
        "line" in exc.value.reason
        or "defines no function" in exc.value.reason
        or "parse" in exc.value.reason
    )
    assert os.listdir(tmp_path) == []


def test_runtime_corpus_is_contained(berry_world, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = dict(berry_world.objects)
    env = env_from_state(berry_world)
    for name, src in CONTAINED.items():
        cs = CheckerSet.compile(src, berry_world, env)
        t0 = time.monotonic()
        assert cs.evaluate("goal_check0", berry_world) is False, name
        assert time.monotonic() - t0 < 1.0, f"{name} took {time.monotonic() - t0:.2f} s"
        assert cs.errors and cs.errors[-1].startswith("goal_check0: "), name
    assert berry_world.objects == before
    assert os.listdir(tmp_path) == []
    assert not os.path.exists(os.path.join(os.path.expanduser("~"), SENTINEL))


def test_corpus_is_large_enough():
    assert len(STATIC) + len(CONTAINED) >= 30


def test_an_object_named_like_the_codes_own_names_does_not_replace_them(berry_world):
    """(break-it) The sandbox binds each object's name to its handle; a name the code already uses (its
    own function, `math`, `state`, a helper) keeps its meaning."""
    from dataclasses import replace

    from owl_bt.state import WorldState

    berry = berry_world.get("strawberry")
    objects = {
        **berry_world.objects,
        "middle": replace(berry, name="middle"),
        "math": replace(berry, name="math"),
        "state": replace(berry, name="state"),
    }
    world = WorldState(objects=objects, robot=berry_world.robot, source=berry_world.source)
    src = fn(
        "return middle() == 2 and math.hypot(3, 4) == 5 and state.get('strawberry').pose.x > 0",
        "def middle():\n    return 2\n",
    )
    cs = CheckerSet.compile(src, world, env_from_state(world))
    assert cs.evaluate("goal_check0", world) is True, cs.errors
