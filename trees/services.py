"""What the tree is connected to, handed to every behaviour's `setup(**kwargs)`.

The same tree runs on simulation or hardware: only these services differ.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from owl_bt.language.vlm import VLM
from perception.source import PerceptionSource
from skills.backend import ArmBackend
from skills.base import Skill


@dataclass
class Services:
    """backend: the arm; perception: the WorldState source; vlm: the constraint generator; skills by
    operator name; rng: seeded sampler randomness; budget: samples per action; log: event logger;
    on_step(action): called after each executed step (a task's detector watches the run through it);
    on_step_start(action, commands): called before each step's commands go to the arm (fault injection
    plans its faults there); stop_request: set to ask the tree to stop (Ctrl-C: the safety guard
    pre-empts everything); ask(question): a person's one line of feedback at the replan prompt
    (`run --interactive`; None: nobody to ask)."""

    backend: ArmBackend
    perception: PerceptionSource
    vlm: VLM
    skills: dict[str, Skill]
    rng: np.random.Generator
    budget: int = 500
    max_skeletons: int = 5
    plan_time: float = 900.0  # seconds a planning round may take (owl_bt.episode_config.PLAN_TIME)
    log: Callable[..., None] = field(default=lambda event, **kw: None)
    on_step: Callable[[str], None] = field(default=lambda action: None)
    on_step_start: Callable[[str, list], None] = field(default=lambda action, commands: None)
    stop_request: threading.Event = field(default_factory=threading.Event)
    stopped_by: str = (
        ""  # the signal that set stop_request ('Ctrl-C (SIGINT)', 'SIGTERM'); '' for another stop
    )
    ask: Callable[[str], str] | None = None
    transcripts: list = field(default_factory=list)  # each attempt's prompts and model answers
    counters: dict = field(
        default_factory=lambda: {"samples": 0, "skeletons": 0, "model_s": 0.0, "queries": 0}
    )
