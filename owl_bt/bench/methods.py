"""The methods a bench can run: each is one entry mapping its name to how it configures
an episode.

A method's `configure(cfg)` returns the EpisodeConfig to run for a (task, seed) base configuration;
`configure=None` marks a comparison method (docs/benchmark.md) this build does not have yet. Adding a method is adding
one entry to `METHODS` (plus whatever EpisodeConfig switch it needs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from owl_bt.errors import UsageError

if (
    TYPE_CHECKING
):  # only for the annotations: the CLI reads the names for its --help without loading the simulator
    from owl_bt.episode_config import EpisodeConfig


@dataclass(frozen=True)
class Method:
    """name: as on the command line (`--method`); description: one line;
    configure: base EpisodeConfig → the one this method runs, or None while not implemented;
    explained: what the method is and what it leaves out, in a sentence."""

    name: str
    description: str
    configure: Callable[[EpisodeConfig], EpisodeConfig] | None = None
    explained: str = ""  # one sentence for a person choosing a method (`owl-bt bench --help`)

    @property
    def available(self) -> bool:
        return self.configure is not None

    def apply(self, cfg: EpisodeConfig) -> EpisodeConfig:
        """The EpisodeConfig this method runs for the base `cfg`, named after the method (what a
        replay of the run re-runs)."""
        return dataclasses.replace(self.configure(cfg), method=self.name)


def _owl(cfg: EpisodeConfig) -> EpisodeConfig:
    return dataclasses.replace(
        cfg, vlm=_backend(cfg.vlm)
    )  # the configured VLM backend (offline by default)


def _backend(spec: str) -> str:
    """The VLM backend spec without a language method prefix ('no-cont/offline' → 'offline')."""
    head, colon, arg = spec.partition(":")
    return head.rpartition("/")[2] + colon + arg


def _language(name: str) -> Callable[[EpisodeConfig], EpisodeConfig]:
    """A method that changes what is asked of the model and what the planner is handed; the switch
    travels in the VLM spec (`owl_bt.language.vlm.parse_spec`) and `constraints.generate` applies it."""
    return lambda cfg: dataclasses.replace(cfg, vlm=f"{name}/{_backend(cfg.vlm)}")


def _cap(sample: bool) -> Callable[[EpisodeConfig], EpisodeConfig]:
    """Code-as-Policies: the plan from gen_plan(initial), run once (one skeleton, one attempt); cap
    places once at the code's positions, cap-sample re-draws from the code's regions (500 samples per
    action, so up to 2,500 for a five-action plan)."""

    def configure(cfg: EpisodeConfig) -> EpisodeConfig:
        name = "cap-sample" if sample else "cap"
        return dataclasses.replace(
            cfg,
            vlm=f"{name}/{_backend(cfg.vlm)}",
            skeletons=1,
            max_attempts=1,
            budget=500 if sample else 1,
        )

    return configure


def _no_back(cfg: EpisodeConfig) -> EpisodeConfig:
    return dataclasses.replace(_owl(cfg), skeletons=1)  # refine the first skeleton only, no edits


def _no_sample(cfg: EpisodeConfig) -> EpisodeConfig:
    return dataclasses.replace(_owl(cfg), budget=1)  # one continuous sample per action


def _oracle(cfg: EpisodeConfig) -> EpisodeConfig:
    return dataclasses.replace(
        cfg, vlm=_backend("oracle")
    )  # the task's hand-written sketch and checkers


FAULTS_SUFFIX = "+faults"  # fault episodes of method m are recorded under m + FAULTS_SUFFIX

METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method(
            "owl",
            "the full method",
            _owl,
            "The full method: the model writes a plan sketch and checker code, and the planner meets both.",
        ),
        Method(
            "no-disc",
            "no plan sketch (continuous constraints only)",
            _language("no-disc"),
            "No plan sketch: only the generated checkers guide the planner, which finds the actions alone.",
        ),
        Method(
            "no-cont",
            "no generated checkers (sketch only; continuous values from TAMP alone)",
            _language("no-cont"),
            "No generated checkers: the plan sketch only; where things go is left to the planner's own samplers.",
        ),
        Method(
            "no-back",
            "only the first skeleton is refined",
            _no_back,
            "No backtracking: only the first skeleton (task plan) is refined; when it fails the round fails.",
        ),
        Method(
            "no-sample",
            "one continuous sample per action",
            _no_sample,
            "One continuous sample per action instead of up to 500, so an unlucky draw is not retried.",
        ),
        Method(
            "direct",
            "the model translates the goal to symbolic goal literals; plain TAMP solves",
            _language("direct"),
            "The model only translates the goal into symbolic goal literals (On, Inside); plain TAMP solves them.",
        ),
        Method(
            "cap",
            "Code-as-Policies: the model writes the whole plan with continuous values, run once",
            _cap(False),
            "Code-as-Policies: the model writes the whole plan with its positions as code, run once, no search.",
        ),
        Method(
            "cap-sample",
            "CaP whose code calls the samplers; up to 2,500 samples per task",
            _cap(True),
            "Code-as-Policies whose code calls the samplers: up to 2,500 draws, the first plan the robot can do.",
        ),
        Method(
            "oracle",
            'hand-written ground-truth sketch and checkers per task (the reference\'s "Manual")',
            _oracle,
            "Each task's hand-written sketch and checkers instead of the model's: the lower bound on samples and time.",
        ),
    )
}


def available() -> list[str]:
    """Names of the methods this build can run, in the order of docs/benchmark.md."""
    return [m.name for m in METHODS.values() if m.available]


def get(name: str) -> Method:
    """The runnable method called `name`; raises UsageError (exit 2) naming the available ones."""
    key = name.strip().lower()
    method = METHODS.get(key)
    if method is None:
        raise UsageError(f"unknown method {name!r}; available: {', '.join(available())}")
    if not method.available:
        raise UsageError(
            f"method {key!r} ({method.description}) is not available in this build yet; "
            f"available: {', '.join(available())}"
        )
    return method


def explained() -> str:
    """Every available method with its sentence, one per line ('owl: The full method: …'), for --help."""
    return "\n".join(f"{m.name}: {m.explained}" for m in METHODS.values() if m.available)
