"""owl_bt.speech.audio: a WAV at any common rate, channel count and sample width is read as the
recogniser's 16 kHz mono 16-bit audio. espeak-ng writes 22,050 Hz mono (tests/fixtures/audio/native,
made by make_fixtures.sh); a phone 44,100 Hz stereo; both are heard as the 16 kHz fixtures are."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest
from scipy.signal import resample_poly

from owl_bt.speech.asr import SphinxRecogniser
from owl_bt.speech.audio import SAMPLE_RATE, read_wav, to_recogniser_pcm
from owl_bt.speech.goal import scene_names

NATIVE = Path(__file__).parents[1] / "fixtures" / "audio" / "native"
SPOKEN = [
    ("mug1-22050.wav", "mug1", "put the fork into the mug"),
    ("fruitsort-22050.wav", "fruitsort", "place the pear on the red line"),
]


def _samples(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth()) == (1, 2)
        return np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(float), w.getframerate()


def _write(path: Path, frames: np.ndarray, rate: int, width: int = 2) -> Path:
    """`frames`: samples × channels floats in [-1, 1) → a PCM WAV of `width` bytes a sample."""
    frames = frames.reshape(len(frames), -1)
    scale = {1: 128, 2: 32768, 3: 8388608}[width]
    ints = np.clip(np.round(frames * scale), -scale, scale - 1).astype(np.int64)
    if width == 1:
        data = (ints + 128).astype(np.uint8).tobytes()
    else:  # little-endian, the low `width` bytes of each sample
        data = ints.astype("<i4").view(np.uint8).reshape(-1, 4)[:, :width].tobytes()
    with wave.open(str(path), "wb") as w:
        w.setnchannels(frames.shape[1])
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(data)
    return path


@pytest.mark.parametrize(("name", "task", "text"), SPOKEN, ids=[s[1] for s in SPOKEN])
def test_espeak_ngs_own_22050_hz_is_heard(name, task, text):
    audio = read_wav(NATIVE / name)
    samples, rate = _samples(NATIVE / name)
    assert rate == 22050
    assert abs(audio.seconds - len(samples) / rate) < 0.001
    heard = SphinxRecogniser(scene_names(task, None, 0)).transcribe(audio)
    assert heard.text == text


@pytest.mark.parametrize(
    ("rate", "channels", "width"), [(44100, 2, 2), (48000, 2, 3), (32000, 1, 2)]
)
def test_phone_and_studio_formats_are_heard(tmp_path, rate, channels, width):
    name, task, text = SPOKEN[0]
    samples, native = _samples(NATIVE / name)
    up = resample_poly(samples / 32768, rate // 50, native // 50)  # as if recorded at `rate`
    frames = np.stack([up, 0.5 * up][:channels], axis=1)  # the second channel quieter
    path = _write(tmp_path / f"phone-{rate}.wav", frames, rate, width)
    audio = read_wav(path)
    assert abs(audio.seconds - len(samples) / native) < 0.002
    assert SphinxRecogniser(scene_names(task, None, 0)).transcribe(audio).text == text


def test_an_8_bit_telephone_tone_keeps_its_pitch_length_and_level(tmp_path):
    t = np.arange(8000) / 8000  # one second at 8 kHz
    path = _write(tmp_path / "tone.wav", 0.5 * np.sin(2 * np.pi * 440 * t), 8000, width=1)
    pcm = np.frombuffer(read_wav(path).pcm, "<i2").astype(float)
    assert len(pcm) == SAMPLE_RATE
    spectrum = np.abs(np.fft.rfft(pcm))
    assert np.argmax(spectrum) == 440  # 1 Hz bins over one second
    middle = pcm[2000:-2000]  # away from the filter's edges
    assert abs(np.sqrt(np.mean(middle**2)) / 32768 - 0.5 / np.sqrt(2)) < 0.02


def test_16_khz_mono_passes_through_unchanged_and_stereo_is_averaged():
    left = np.array([1000, -2000, 3000], dtype="<i2")
    right = np.array([3000, 2000, -3000], dtype="<i2")
    stereo = np.stack([left, right], axis=1).tobytes()
    assert np.frombuffer(to_recogniser_pcm(stereo, SAMPLE_RATE, 2, 2), "<i2").tolist() == [
        2000,
        0,
        0,
    ]
