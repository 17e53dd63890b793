"""The checks of `owl-bt doctor` for what a run uses beyond the simulator and the planners: open3d,
Graphviz, the microphone, the speech model, and the VLM settings and endpoint.

Each check returns one line of detail when all is well and raises `Problem` (or any exception) when
not; `Problem.hint` says how to fix it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass

ENDPOINT_TIMEOUT_S = 3.0  # seconds the VLM endpoint has to answer the doctor


class Problem(Exception):
    """A failed check: `str(self)` says what is wrong, `hint` how to fix it."""

    def __init__(self, what: str, hint: str = "") -> None:
        super().__init__(what)
        self.hint = hint


def open3d_import() -> str:
    """open3d imports (it loads libusb and libGL when it does): the camera's point clouds need it."""
    try:
        import open3d
    except (ImportError, OSError) as exc:
        raise Problem(
            f"cannot import open3d ({' '.join(str(exc).split())})",
            "apt-get install libusb-1.0-0 libgl1 (as root), then re-run scripts/setup.sh",
        ) from None
    return open3d.__version__


def graphviz_dot() -> str:
    """Graphviz's `dot` is on PATH and runs: it draws tree.png in every run folder."""
    exe = shutil.which("dot")
    if exe is None:
        raise Problem("Graphviz's dot is not on PATH", "apt-get install graphviz")
    proc = subprocess.run([exe, "-V"], capture_output=True, text=True, timeout=10)
    if proc.returncode != 0:
        raise Problem(f"{exe} -V exited {proc.returncode}", "apt-get install --reinstall graphviz")
    return (proc.stderr or proc.stdout).strip()


def microphone() -> str:
    """sounddevice imports (its PortAudio library is there) and some device records: `run --listen`."""
    try:
        import sounddevice as sd
    except (ImportError, OSError) as exc:
        raise Problem(
            f"no PortAudio ({' '.join(str(exc).split())})",
            "apt-get install libportaudio2; or say the goal in a file with --audio goal.wav",
        ) from None
    inputs = [d for d in sd.query_devices() if d.get("max_input_channels", 0) > 0]
    if not inputs:
        raise Problem(
            "PortAudio is there but no input device is",
            "plug in a microphone, or say the goal in a file with --audio goal.wav",
        )
    default = sd.query_devices(kind="input")
    return f"{len(inputs)} input device(s); default {default['name']!r}"


def speech_model() -> str:
    """pocketsphinx imports and its bundled US-English model is complete: spoken goals offline."""
    import os

    hint = "reinstall pocketsphinx: .venv/bin/pip install --force-reinstall pocketsphinx"
    try:
        import pocketsphinx
    except ImportError as exc:
        raise Problem(f"cannot import pocketsphinx ({exc})", hint) from None
    model = os.path.join(pocketsphinx.get_model_path(), "en-us")
    needed = ("en-us/mdef", "en-us/means", "en-us/variances", "cmudict-en-us.dict")
    missing = [name for name in needed if not os.path.isfile(os.path.join(model, name))]
    if missing:
        raise Problem(f"the model at {model} lacks {', '.join(missing)}", hint)
    return f"US-English model at {model}"


@dataclass(frozen=True)
class VLMSetup:
    """What the doctor found of the VLM settings: configured or not, and the settings if valid."""

    configured: bool
    base_url: str | None = None
    model: str = ""
    api_key: str = ""


def vlm_setup(env: dict[str, str] | None = None) -> VLMSetup:
    """The `openai` backend's settings (`owl_bt.language.settings`), without calling anything. Not
    configured: no endpoint, key or [vlm] table anywhere (the offline grounder is the default)."""
    import os
    from pathlib import Path

    from owl_bt.errors import UsageError
    from owl_bt.language.settings import load_settings

    env = dict(os.environ) if env is None else env
    path = Path(env.get("OWL_BT_CONFIG") or "owl-bt.toml")
    if not (env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_KEY") or _names_a_vlm(path)):
        return VLMSetup(configured=False)
    try:
        settings = load_settings(env)
    except UsageError as exc:
        raise Problem(
            str(exc), "fix the settings (see docs/usage.md, 'Goals you can say')"
        ) from None
    return VLMSetup(True, settings.base_url, settings.model, settings.api_key)


def vlm_settings(setup: VLMSetup) -> str:
    """One line on the settings `vlm_setup` found."""
    if not setup.configured:
        return (
            "not configured: the offline grounder answers (for --vlm openai set OPENAI_BASE_URL and "
            "OWL_BT_VLM_MODEL, or a [vlm] table in owl-bt.toml)"
        )
    return f"model {setup.model!r} at {setup.base_url or 'https://api.openai.com/v1'}"


def vlm_endpoint(setup: VLMSetup, timeout_s: float = ENDPOINT_TIMEOUT_S) -> str:
    """Whether the configured endpoint answers `GET <base URL>/models` within `timeout_s` seconds,
    and whether it lists the configured model. A refused key (HTTP 401/403) is a problem; another
    HTTP status still means a server answers."""
    base = (setup.base_url or "https://api.openai.com/v1").rstrip("/")
    request = urllib.request.Request(base + "/models")
    if setup.api_key:
        request.add_header("Authorization", f"Bearer {setup.api_key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            body = response.read(1 << 20)
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise Problem(
                f"{base} refuses the key (HTTP {exc.code})", "check OPENAI_API_KEY"
            ) from None
        return f"{base} answers (HTTP {exc.code} for /models)"
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        what = (
            f"does not answer within {timeout_s:g} s"
            if isinstance(reason, TimeoutError)
            else f"cannot be reached ({' '.join(str(reason).split())})"
        )
        raise Problem(
            f"{base} {what}",
            "start the server, or check OPENAI_BASE_URL / base_url in owl-bt.toml",
        ) from None
    try:
        names = [m.get("id") for m in json.loads(body).get("data", []) if isinstance(m, dict)]
    except (ValueError, AttributeError):
        return f"{base} answers"
    if setup.model and names and setup.model not in names:
        raise Problem(
            f"{base} answers but does not list the model {setup.model!r} (it has: "
            f"{', '.join(str(n) for n in names[:8])})",
            "set OWL_BT_VLM_MODEL (or model in owl-bt.toml) to one it has",
        )
    return f"{base} answers; lists {len(names)} model(s)" + (
        f", {setup.model!r} among them" if setup.model in names else ""
    )


def _names_a_vlm(path) -> bool:
    """Whether the settings file at `path` may configure a VLM: it has a [vlm] table, or it is
    something `load_settings` must refuse (not a file, not TOML). A setup file with only [robot]
    and [camera] configures none."""
    import tomllib

    if not path.exists():
        return False
    if not path.is_file():
        return True
    try:
        return "vlm" in tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return True
