"""Options with a fixed set of values, as `Literal` types: typer lists them in `--help`
(`[sim|kortex|rtde]`) and refuses any other value as a usage error naming them (exit 2). Matching
is case-insensitive (`case_sensitive=False` on the option)."""

from __future__ import annotations

from typing import Literal

from owl_bt.bench.methods import available
from owl_bt.language.vlm import BACKENDS as VLM_BACKENDS
from owl_bt.speech.asr import BACKENDS as ASR_BACKENDS
from sim.robot import ALIASES, ROBOTS
from skills.hardware import BACKENDS as ARM_BACKENDS

PERCEPTION_SOURCES = (
    "camera",
    "camera-unlabelled",
    "sim-state",
)  # owl_bt.episode's (importing it here would load the simulator for --help)

Vlm = Literal[tuple(VLM_BACKENDS)]  # type: ignore[valid-type]
# the backends a bench can ask (oracle is a method; a replay answers one recorded run)
BenchVlm = Literal["offline", "openai"]
Method = Literal[tuple(available())]  # type: ignore[valid-type]
Perception = Literal[PERCEPTION_SOURCES]  # type: ignore[valid-type]
Robot = Literal[(*ROBOTS, *ALIASES)]  # type: ignore[valid-type]  # the aliases too: ur5, gen3 …
ArmBackend = Literal[tuple(ARM_BACKENDS)]  # type: ignore[valid-type]
HardwareBackend = Literal[tuple(b for b in ARM_BACKENDS if b != "sim")]  # type: ignore[valid-type]
Recogniser = Literal[tuple(ASR_BACKENDS)]  # type: ignore[valid-type]
