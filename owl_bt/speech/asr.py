"""Speech recognition backends: `sphinx` (offline pocketsphinx, the default) and `openai` (an
OpenAI-compatible transcription endpoint).

`sphinx` decodes with pocketsphinx's bundled US-English acoustic model and pronouncing dictionary,
constrained by the scene's JSGF grammar (`owl_bt.speech.grammar`): it can only hear goals that name
the scene's objects in the offline grounder's words, which is what makes a small offline model
reliable. `openai` posts the WAV to `<base URL>/audio/transcriptions` with the `openai` client
(configured by OPENAI_API_KEY and OPENAI_BASE_URL, model OWL_BT_ASR_MODEL, default whisper-1),
with the scene's object names as the prompt.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

from owl_bt.errors import UsageError
from owl_bt.speech.audio import Audio, check_not_silent
from owl_bt.speech.grammar import Grammar, SceneName, build_grammar

BACKENDS = ("sphinx", "openai")
DEFAULT_OPENAI_MODEL = "whisper-1"


@dataclass(frozen=True)
class Transcript:
    """What was heard: `text` (lower case words), the backend, the audio's source and length
    (seconds), and the decoding time (seconds)."""

    text: str
    backend: str
    source: str
    audio_s: float
    decode_s: float

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "backend": self.backend,
            "source": self.source,
            "audio_s": round(self.audio_s, 2),
            "decode_s": round(self.decode_s, 3),
        }


class SphinxRecogniser:
    """Offline pocketsphinx decoder constrained to the scene's goal grammar."""

    name = "sphinx"

    def __init__(self, objects: Iterable[SceneName]) -> None:
        import pocketsphinx as ps

        ps.set_loglevel("FATAL")
        self._decoder = ps.Decoder(ps.Config(lm=None, samprate=16000, logfn=os.devnull))
        self.grammar: Grammar = build_grammar(
            objects, lambda w: self._decoder.lookup_word(w) is not None
        )
        self._decoder.add_jsgf_string("goal", self.grammar.jsgf)
        self._decoder.activate_search("goal")

    def transcribe(self, audio: Audio) -> Transcript:
        """The goal heard in `audio`; raises UsageError for silence or when no goal of the grammar
        matches what was said (noise, other words)."""
        check_not_silent(audio)
        t0 = time.monotonic()
        d = self._decoder
        d.start_utt()
        d.process_raw(audio.pcm, full_utt=True)
        d.end_utt()
        hyp = d.hyp()
        # pocketsphinx falls back to the best partial path when no path reaches the grammar's end:
        # only a complete goal of the grammar counts
        fsg = d.get_fsg("goal")
        text = hyp.hypstr.strip() if hyp is not None else ""
        if text and not fsg.accept(text):
            text = next((h.hypstr for h in d.nbest() if h.hypstr and fsg.accept(h.hypstr)), "")
        if not text:
            raise UsageError(
                f"no goal recognised in {audio.source}: say it as 'put the <object> onto the <object>' with the "
                "names of the objects on the table (or use --asr openai)"
            )
        return Transcript(text, self.name, audio.source, audio.seconds, time.monotonic() - t0)


class OpenAITranscriber:
    """The OpenAI transcription API (or a compatible server) through the `openai` client."""

    name = "openai"

    def __init__(
        self,
        objects: Iterable[SceneName],
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        timeout_s: float = 60.0,
    ) -> None:
        api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if not api_key:
            raise UsageError(
                "--asr openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for a server other than OpenAI's)"
            )
        from openai import OpenAI

        from owl_bt.language.settings import check_key, check_url

        check_key(api_key)  # as the VLM's are
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        if base_url is not None:
            check_url(base_url, "OPENAI_BASE_URL")
        self.model = model or os.environ.get("OWL_BT_ASR_MODEL") or DEFAULT_OPENAI_MODEL
        self._client = OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=1)
        self._prompt = "A goal for a robot arm at a table with: " + ", ".join(
            o.name.replace("_", " ") for o in objects
        )

    def transcribe(self, audio: Audio) -> Transcript:
        """The service's transcript, normalised to lower-case words; raises UsageError when the
        service cannot be reached, refuses the request, or returns no text."""
        import openai

        check_not_silent(audio)
        t0 = time.monotonic()
        try:
            res = self._client.audio.transcriptions.create(
                model=self.model,
                file=(f"{audio.source.rsplit('.', 1)[0]}.wav", audio.wav_bytes(), "audio/wav"),
                prompt=self._prompt,
                response_format="json",
            )
        except openai.APIConnectionError as exc:
            raise UsageError(
                f"the transcription service at {self._client.base_url} cannot be reached: {exc}"
            ) from None
        except openai.APIStatusError as exc:
            raise UsageError(
                f"the transcription service refused the request (HTTP {exc.status_code}): "
                f"{_one_line(exc.message)}"
            ) from None
        text = normalise(getattr(res, "text", "") or "")
        if not text:
            raise UsageError(f"the transcription service heard no words in {audio.source}")
        return Transcript(text, self.name, audio.source, audio.seconds, time.monotonic() - t0)


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces (hyphens split, other punctuation dropped)."""
    return " ".join(re.findall(r"[a-z0-9']+", text.lower().replace("-", " ")))


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:200]


def check_backend(name: str) -> None:
    """Raise UsageError when `name` is not a speech recogniser this build has (checked up front,
    also when no audio is given)."""
    if name not in BACKENDS:
        raise UsageError(f"unknown speech recogniser {name!r}; available: {', '.join(BACKENDS)}")


def make_recogniser(
    name: str, objects: Iterable[SceneName]
) -> SphinxRecogniser | OpenAITranscriber:
    """The backend called `name` for a scene with these objects; raises UsageError for an unknown one."""
    objects = list(objects)
    if name == "sphinx":
        return SphinxRecogniser(objects)
    if name == "openai":
        return OpenAITranscriber(objects)
    raise UsageError(f"unknown speech recogniser {name!r}; available: {', '.join(BACKENDS)}")
