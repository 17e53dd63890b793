"""Spoken goals: espeak-ng fixtures (tests/fixtures/audio, made by make_fixtures.sh) recognised by
the offline pocketsphinx decoder under the scene's grammar; silence, noise and a sample rate out of
range end in a one-line reason."""

from __future__ import annotations

import json
import wave
from pathlib import Path

import numpy as np
import pytest

from owl_bt.errors import UsageError
from owl_bt.language.offline import SceneObject, ground
from owl_bt.speech.asr import SphinxRecogniser, normalise
from owl_bt.speech.audio import SAMPLE_RATE, Audio, read_wav
from owl_bt.speech.goal import check_meant_for_this_scene, scene_names
from owl_bt.speech.grammar import SceneName, build_grammar, object_phrases

AUDIO = Path(__file__).parents[1] / "fixtures" / "audio"
GOALS = json.loads((AUDIO / "goals.json").read_text())


@pytest.fixture(scope="module")
def names_by_task():
    return {g["task"]: scene_names(g["task"], None, 0) for g in GOALS}


@pytest.mark.parametrize("goal", GOALS, ids=[g["task"] for g in GOALS])
def test_fixture_is_transcribed_to_its_text(goal, names_by_task):
    names = names_by_task[goal["task"]]
    heard = SphinxRecogniser(names).transcribe(read_wav(AUDIO / goal["file"]))
    assert heard.text == goal["text"]
    # and the offline grounder can act on what was heard
    clauses = ground(heard.text, [SceneObject(n.name, n.category, n.colour) for n in names])
    assert clauses
    check_meant_for_this_scene(heard.text, names)  # raises for speech meant for another scene


def test_speech_meant_for_another_scene_is_a_usage_error(names_by_task):
    # the grammar of the Berry1 scene forces the Citrus goal onto Berry1's words: a region to move
    heard = SphinxRecogniser(names_by_task["berry1"]).transcribe(read_wav(AUDIO / "citrus.wav"))
    with pytest.raises(UsageError, match="another scene"):
        check_meant_for_this_scene(heard.text, names_by_task["berry1"])
    # a free transcriber hears the words as said: objects this scene does not have
    with pytest.raises(
        UsageError, match="names a lemon, which this scene does not have.*another scene"
    ):
        check_meant_for_this_scene(
            "put the lemon and the orange onto the plate", names_by_task["berry1"]
        )
    check_meant_for_this_scene(
        "juggle the strawberry", names_by_task["berry1"]
    )  # unknown words: a VLM may know them


def test_fixtures_cover_eight_tasks_and_are_small():
    assert len({g["task"] for g in GOALS}) >= 8
    for g in GOALS:
        with wave.open(str(AUDIO / g["file"])) as w:
            assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16000, 1, 2)
        assert (AUDIO / g["file"]).stat().st_size < 200_000


def test_grammar_names_only_this_scenes_objects(names_by_task):
    berry = build_grammar(names_by_task["berry1"]).jsgf
    assert "light grey region" in berry and "strawberry" in berry
    assert "mug" not in berry.split("<thing> =")[1].split(";")[0]
    assert "citrus fruit" in object_phrases(
        names_by_task["citrus"]
    )  # an ontology group with members here


def test_grammar_leaves_out_words_the_dictionary_lacks():
    g = build_grammar(
        [SceneName("zzyzx_box", "zzyzx", ""), SceneName("plate", "plate", "white")],
        known=lambda w: w != "zzyzx",
    )
    assert "zzyzx" in g.dropped and "zzyzx" not in g.words
    with pytest.raises(ValueError):
        build_grammar([SceneName("qq", "qq", "")], known=lambda w: False)


def _write(path: Path, samples: np.ndarray, rate: int = SAMPLE_RATE, channels: int = 1) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())
    return path


def test_silence_is_named(tmp_path, names_by_task):
    clip = read_wav(_write(tmp_path / "silence.wav", np.zeros(3 * SAMPLE_RATE)))
    with pytest.raises(UsageError, match="no speech in silence.wav: digital silence"):
        SphinxRecogniser(names_by_task["berry1"]).transcribe(clip)
    hiss = np.random.default_rng(1).normal(0, 20, 3 * SAMPLE_RATE)  # −64 dBFS: a quiet room
    with pytest.raises(UsageError, match="no speech in quiet.wav"):
        SphinxRecogniser(names_by_task["berry1"]).transcribe(
            read_wav(_write(tmp_path / "quiet.wav", hiss))
        )


def test_noise_is_not_taken_for_a_goal(tmp_path, names_by_task):
    noise = np.random.default_rng(0).normal(0, 3000, 3 * SAMPLE_RATE).clip(-32000, 32000)
    with pytest.raises(UsageError, match="no goal recognised in noise.wav"):
        SphinxRecogniser(names_by_task["berry1"]).transcribe(
            read_wav(_write(tmp_path / "noise.wav", noise))
        )


def test_rates_and_channels_out_of_range_and_non_wavs_are_named(tmp_path):
    # 44.1 kHz and stereo are read now (tests/speech/test_audio.py); what no WAV reader here takes is named
    with wave.open(str(AUDIO / "berry1.wav")) as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), "<i2")
    with pytest.raises(UsageError, match="sampled at 4000 Hz; owl-bt reads 8000–96000 Hz"):
        read_wav(_write(tmp_path / "slow.wav", samples, rate=4000))
    with pytest.raises(UsageError, match="9 channels; owl-bt reads 1–8"):
        read_wav(_write(tmp_path / "many.wav", np.repeat(samples, 9), channels=9))
    (tmp_path / "text.wav").write_text("not audio")
    with pytest.raises(UsageError, match="is not a PCM WAV file"):
        read_wav(tmp_path / "text.wav")
    with pytest.raises(UsageError, match="does not exist"):
        read_wav(tmp_path / "missing.wav")


def test_wav_bytes_round_trip():
    clip = read_wav(AUDIO / "coffee.wav")
    again = Audio(clip.pcm, "x")
    assert again.wav_bytes()[:4] == b"RIFF" and abs(again.seconds - clip.seconds) < 1e-9


def test_normalise():
    assert (
        normalise("Put the strawberry onto the light-grey region.")
        == "put the strawberry onto the light grey region"
    )


def test_end_of_speech_is_detected_in_a_stream():
    """The microphone loop's logic on a stream: 1 s silence, a spoken goal, 3 s silence — reading
    stops about half a second after the speech ends, and the speech kept is the goal."""
    from pocketsphinx import Endpointer

    from owl_bt.speech.audio import utterance

    goal = read_wav(AUDIO / "berry2.wav")
    stream = bytes(2 * SAMPLE_RATE) + goal.pcm + bytes(6 * SAMPLE_RATE)
    ep = Endpointer(sample_rate=SAMPLE_RATE)
    fb = ep.frame_bytes
    read = []

    def frames():
        for i in range(0, len(stream) - fb + 1, fb):
            read.append(i)
            yield stream[i : i + fb]

    states = []
    pcm = utterance(frames(), ep, states.append)
    stopped_s = (read[-1] + fb) / (2 * SAMPLE_RATE)
    assert states == ["hearing speech…"]
    assert (
        1.0 + goal.seconds < stopped_s < 1.0 + goal.seconds + 1.5
    )  # not the 3 s of trailing silence
    assert abs(len(pcm) / (2 * SAMPLE_RATE) - goal.seconds) < 1.0
    heard = SphinxRecogniser(scene_names("berry2", None, 0)).transcribe(Audio(pcm, "stream"))
    assert heard.text == "move the strawberry onto the light grey region"


def test_a_stream_that_ends_mid_speech_keeps_what_was_said():
    from pocketsphinx import Endpointer

    from owl_bt.speech.audio import utterance

    goal = read_wav(AUDIO / "berry2.wav")
    stream = bytes(2 * SAMPLE_RATE) + goal.pcm  # no silence after: the microphone's time ran out
    ep = Endpointer(sample_rate=SAMPLE_RATE)
    fb = ep.frame_bytes
    pcm = utterance((stream[i : i + fb] for i in range(0, len(stream) - fb + 1, fb)), ep)
    assert len(pcm) / (2 * SAMPLE_RATE) > goal.seconds - 0.6
    assert (
        utterance(iter([bytes(fb)] * 100), Endpointer(sample_rate=SAMPLE_RATE)) == b""
    )  # silence only


@pytest.mark.parametrize(
    ("url", "key", "why"),
    [
        ("http://[::1/v1", "x", "OPENAI_BASE_URL is not a URL"),
        ("http://127.0.0.1:9/v1\n", "x", "OPENAI_BASE_URL is not a URL"),
        ("ftp://x", "x", "OPENAI_BASE_URL is not a URL"),
        ("http://127.0.0.1:9/v1", "é", "OPENAI_API_KEY holds a character"),
        ("http://127.0.0.1:9/v1", "sk-1\n", "OPENAI_API_KEY holds a character"),
    ],
)
def test_the_openai_transcriber_checks_its_endpoint_and_key_as_the_vlm_does(url, key, why):
    # These were tracebacks from the HTTP client (or "cannot be reached" for ftp://)
    from owl_bt.speech.asr import OpenAITranscriber

    with pytest.raises(UsageError, match=f"^{why}"):
        OpenAITranscriber([SceneName("plate", "plate", "white")], base_url=url, api_key=key)
