"""Where the `openai` VLM backend finds its endpoint: a settings file, then environment variables.

Settings file (TOML, optional): `$OWL_BT_CONFIG`, else `./owl-bt.toml`, table `[vlm]`:

    [vlm]
    base_url = "http://127.0.0.1:11434/v1"   # any OpenAI-compatible server (vLLM, Ollama, llama.cpp)
    model = "qwen2.5-vl"
    timeout_s = 60          # per HTTP request
    max_retries = 3         # on 408/409/429/5xx and timeouts, with exponential backoff
    temperature = 0.0
    cache_dir = "~/.cache/owl-bt/vlm"   # or "off"

Environment variables override the file: `OPENAI_BASE_URL`, `OPENAI_API_KEY` (never put the key in
the file), `OWL_BT_VLM_MODEL`, `OWL_BT_VLM_CACHE` (a folder or `off`).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pydantic

from owl_bt.errors import UsageError

DEFAULT_CACHE = Path("~/.cache/owl-bt/vlm")
OPENAI_DEFAULT_MODEL = "gpt-4o"


@dataclass(frozen=True)
class VLMSettings:
    """base_url None means api.openai.com; api_key may be empty for local servers; timeout_s in
    seconds per request; cache_dir None disables the response cache."""

    base_url: str | None
    model: str
    api_key: str
    timeout_s: float = 60.0
    max_retries: int = 3
    temperature: float = 0.0
    cache_dir: Path | None = DEFAULT_CACHE.expanduser()


SETTINGS_MAX_BYTES = 1 << 20  # a [vlm] table is a few lines
MAX_RETRIES = 10  # bounded: each waits longer (exponential backoff)


class _VLMTable(pydantic.BaseModel):
    """The settings file's [vlm] table, checked key by key (an unknown key is refused, as a scene file's
    is; a number where a text belongs is not taken for one: `base_url = 5` is refused)."""

    model_config = pydantic.ConfigDict(extra="forbid", strict=True)

    base_url: str | None = None
    model: str | None = None
    timeout_s: float = pydantic.Field(60.0, gt=0, le=3600, allow_inf_nan=False)
    max_retries: int = pydantic.Field(3, ge=0, le=MAX_RETRIES)
    temperature: float = pydantic.Field(0.0, ge=0, le=2, allow_inf_nan=False)
    cache_dir: str | None = None


def check_key(key: str) -> None:
    """Raise UsageError unless `key` (OPENAI_API_KEY) can go in an HTTP header: printable ASCII ('é'
    would fail the run after set-up with a codec error, a newline as 'cannot reach the model')."""
    if key and not all(32 < ord(c) < 127 for c in key):
        raise UsageError(
            "OPENAI_API_KEY holds a character an HTTP header cannot carry (a space, a newline or a "
            "non-ASCII letter); copy the key again"
        )


def check_url(url: str, where: str) -> None:
    """Raise UsageError unless `url` is an http(s) address with a host (no spaces or control characters:
    a trailing newline from a CRLF .env file was a traceback from the HTTP client)."""
    from urllib.parse import urlsplit

    bad = next((c for c in url if c.isspace() or ord(c) < 32 or ord(c) == 127), None)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError as exc:
        raise UsageError(f"{where} is not a URL ({url!r}: {exc})") from None
    if bad is not None or parts.scheme not in ("http", "https") or not parts.hostname:
        why = f"it holds {bad!r}" if bad is not None else "give http://host[:port]/path"
        raise UsageError(f"{where} is not a URL ({url!r}: {why})")


def load_settings(env: dict[str, str] | None = None, path: Path | None = None) -> VLMSettings:
    """Settings from the file and `env` (default os.environ); raises UsageError (exit 2) when the
    file is malformed, no model is named for a custom endpoint, or api.openai.com has no key."""
    env = dict(os.environ) if env is None else env
    path = path or Path(env.get("OWL_BT_CONFIG") or "owl-bt.toml")
    table: dict = {}
    if (
        path.exists() and not path.is_file()
    ):  # OWL_BT_CONFIG=/dev/zero or a folder: not silently ignored
        raise UsageError(
            f"settings file {path} is {'a folder' if path.is_dir() else 'not a regular file'}"
        )
    if path.is_file():
        try:
            if path.stat().st_size > SETTINGS_MAX_BYTES:
                raise UsageError(
                    f"settings file {path} is {path.stat().st_size} bytes; it can be at most {SETTINGS_MAX_BYTES}"
                )
            table = tomllib.loads(path.read_text(encoding="utf-8-sig")).get("vlm", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"settings file {path} is not valid TOML: {exc}") from None
        except RecursionError:  # tomllib recurses per level: 3000 nested arrays
            raise UsageError(f"settings file {path} is not valid TOML: nested too deeply") from None
        except OSError as exc:
            raise UsageError(
                f"cannot read the settings file {path}: {exc.strerror or exc}"
            ) from None
        if not isinstance(table, dict):
            raise UsageError(f"settings file {path}: [vlm] must be a table")
        if "api_key" in table:
            raise UsageError(
                f"settings file {path}: put the key in OPENAI_API_KEY, not in the file"
            )
    try:
        file = _VLMTable.model_validate(table)
    except pydantic.ValidationError as exc:
        e = exc.errors()[0]
        where = ".".join(str(x) for x in e["loc"]) or "[vlm]"
        why = f"{e['msg'][:1].lower()}{e['msg'][1:]}"
        if e["type"] == "extra_forbidden":
            why = f"not a setting (the [vlm] keys are {', '.join(_VLMTable.model_fields)}, and api_key in the environment)"
        raise UsageError(f"settings file {path}: [vlm] {where}: {why}") from None
    base_url = env.get("OPENAI_BASE_URL") or file.base_url or None
    if base_url is not None:
        check_url(
            base_url,
            "OPENAI_BASE_URL"
            if env.get("OPENAI_BASE_URL")
            else f"settings file {path}: [vlm] base_url",
        )
    model = (
        env.get("OWL_BT_VLM_MODEL") or file.model or (None if base_url else OPENAI_DEFAULT_MODEL)
    )
    key = env.get("OPENAI_API_KEY", "")
    check_key(key)
    if not model:
        raise UsageError(
            f"the openai VLM backend at {base_url} needs a model: set OWL_BT_VLM_MODEL or [vlm] model"
        )
    if base_url is None and not key:
        raise UsageError(
            "the openai VLM backend needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)"
        )
    cache = env.get("OWL_BT_VLM_CACHE") or file.cache_dir or str(DEFAULT_CACHE)
    if any(ord(c) < 32 for c in cache):  # a NUL ended the run later as "embedded null byte"
        raise UsageError(
            f"the response cache folder {cache!r} holds a control character (OWL_BT_VLM_CACHE or [vlm] cache_dir)"
        )
    timeout, retries, temperature = file.timeout_s, file.max_retries, file.temperature
    return VLMSettings(
        base_url=base_url,
        model=str(model),
        api_key=key,
        timeout_s=timeout,
        max_retries=retries,
        temperature=temperature,
        cache_dir=None if cache.lower() == "off" else Path(cache).expanduser(),
    )
