"""Audio in: WAV files and the microphone, as 16 kHz mono 16-bit PCM (what the recogniser's
acoustic model was trained on). A WAV at another common rate (8–96 kHz), with more channels or with
8-, 24- or 32-bit samples is mixed down to mono and resampled (scipy's polyphase `resample_poly`).
Every problem is a UsageError with a one-line reason."""

from __future__ import annotations

import io
import math
import time
import wave
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from owl_bt.errors import UsageError

SAMPLE_RATE = 16000  # Hz
SAMPLE_WIDTH = 2  # bytes (16-bit signed PCM)
SILENCE_DBFS = -50.0  # an utterance whose loudest 30 ms window is quieter than this is silence
MAX_SECONDS = 30.0
CONVERT_HINT = "convert it with: sox IN.wav -r 16000 -c 1 -b 16 OUT.wav"
RATES = (8000, 96000)  # Hz: the sample rates read (telephone to studio)
MAX_CHANNELS = 8
FULL_SCALE = {1: 128.0, 2: 32768.0, 3: 8388608.0, 4: 2147483648.0}  # by sample width in bytes


@dataclass(frozen=True)
class Audio:
    """pcm: 16 kHz mono signed 16-bit little-endian samples; source: a file name or 'microphone'."""

    pcm: bytes
    source: str

    @property
    def seconds(self) -> float:
        return len(self.pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)

    def wav_bytes(self) -> bytes:
        """The audio as a complete WAV file (for upload to a transcription service)."""
        buf = io.BytesIO()
        with wave.open(buf, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(SAMPLE_WIDTH)
            w.setframerate(SAMPLE_RATE)
            w.writeframes(self.pcm)
        return buf.getvalue()


def read_wav(path: Path) -> Audio:
    """A PCM WAV file as 16 kHz mono 16-bit audio: 8–96 kHz, 1–8 channels (averaged), 8/16/24/32-bit
    integer samples. Raises UsageError naming what is wrong (missing file, not a PCM WAV, a rate or
    channel count out of range, empty, longer than 30 s)."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"audio file {path} does not exist")
    if not path.is_file():  # a folder, /dev/zero, a FIFO: it would be read until memory ran out
        raise UsageError(
            f"audio file {path} is {'a folder' if path.is_dir() else 'not a regular file'}; give a WAV file"
        )
    size = path.stat().st_size
    if size > MAX_SECONDS * RATES[1] * MAX_CHANNELS * 4 + (1 << 16):  # 30 s at the widest format
        raise UsageError(
            f"{path.name} is {size} bytes, more than {MAX_SECONDS:.0f} s of audio; "
            f"say the goal in at most {MAX_SECONDS:.0f} s"
        )
    try:
        with wave.open(str(path), "rb") as w:
            rate, channels, width, frames = (
                w.getframerate(),
                w.getnchannels(),
                w.getsampwidth(),
                w.getnframes(),
            )
            _check_format(path.name, rate, channels, width)
            if frames > MAX_SECONDS * rate:
                raise UsageError(
                    f"{path.name} is {frames / rate:.0f} s long; say the goal in at most {MAX_SECONDS:.0f} s"
                )
            pcm = w.readframes(frames)
    except (wave.Error, EOFError) as exc:
        why = str(exc) or (
            "it is empty" if size == 0 else "it ends inside its header"
        )  # EOFError says nothing
        raise UsageError(f"{path.name} is not a PCM WAV file ({why}); {CONVERT_HINT}") from None
    if not pcm:
        raise UsageError(f"{path.name} holds no audio")
    if (rate, channels, width) != (SAMPLE_RATE, 1, SAMPLE_WIDTH):
        pcm = to_recogniser_pcm(pcm, rate, channels, width)
    audio = Audio(pcm, path.name)
    if audio.seconds > MAX_SECONDS:
        raise UsageError(
            f"{path.name} is {audio.seconds:.0f} s long; say the goal in at most {MAX_SECONDS:.0f} s"
        )
    return audio


def _check_format(name: str, rate: int, channels: int, width: int) -> None:
    if not RATES[0] <= rate <= RATES[1]:
        raise UsageError(
            f"{name} is sampled at {rate} Hz; owl-bt reads {RATES[0]}–{RATES[1]} Hz — {CONVERT_HINT}"
        )
    if not 1 <= channels <= MAX_CHANNELS:
        raise UsageError(
            f"{name} has {channels} channels; owl-bt reads 1–{MAX_CHANNELS} — {CONVERT_HINT}"
        )
    if width not in FULL_SCALE:
        raise UsageError(
            f"{name} has {8 * width}-bit samples; owl-bt reads 8-, 16-, 24- and 32-bit PCM — {CONVERT_HINT}"
        )


def to_recogniser_pcm(pcm: bytes, rate: int, channels: int, width: int) -> bytes:
    """Interleaved little-endian PCM frames (`width` bytes a sample; 8-bit unsigned, wider signed, as in
    WAV) at `rate` Hz with `channels` channels → 16 kHz mono signed 16-bit PCM: the channels averaged,
    resampled by a polyphase filter (scipy.signal.resample_poly), clipped to full scale."""
    import numpy as np
    from scipy.signal import resample_poly

    raw = np.frombuffer(pcm[: len(pcm) - len(pcm) % (width * channels)], dtype=np.uint8)
    if width == 1:
        samples = raw.astype(np.float64) - 128.0
    elif width == 3:  # 24-bit: widen each sample to 32 bits, then shift the sign back in
        triples = raw.reshape(-1, 3).astype(np.int32)
        samples = ((triples[:, 0] << 8 | triples[:, 1] << 16 | triples[:, 2] << 24) >> 8).astype(
            np.float64
        )
    else:
        samples = raw.view(f"<i{width}").astype(np.float64)
    mono = samples.reshape(-1, channels).mean(axis=1) / FULL_SCALE[width]
    step = math.gcd(SAMPLE_RATE, rate)
    if rate != SAMPLE_RATE:
        mono = resample_poly(mono, SAMPLE_RATE // step, rate // step)
    return (np.clip(mono, -1.0, 32767 / 32768) * 32768).round().astype("<i2").tobytes()


def peak_dbfs(pcm: bytes, window_s: float = 0.03) -> float:
    """Loudest RMS level over windows of `window_s` seconds, in dB relative to full scale (−inf for
    digital silence)."""
    samples = array("h", pcm)
    n = max(1, int(SAMPLE_RATE * window_s))
    best = 0.0
    for i in range(0, len(samples), n):
        chunk = samples[i : i + n]
        if chunk:
            best = max(best, math.sqrt(sum(s * s for s in chunk) / len(chunk)))
    return 20 * math.log10(best / 32768) if best > 0 else float("-inf")


def check_not_silent(audio: Audio) -> None:
    """Raise UsageError when the audio is silence (nothing louder than SILENCE_DBFS)."""
    level = peak_dbfs(audio.pcm)
    if level < SILENCE_DBFS:
        shown = (
            "digital silence" if level == float("-inf") else f"its loudest part is {level:.0f} dBFS"
        )
        raise UsageError(
            f"no speech in {audio.source}: {shown}; say the goal closer to the microphone or louder"
        )


def listen(
    device: int | str | None = None,
    max_seconds: float = 15.0,
    on_state: Callable[[str], None] = lambda s: None,
) -> Audio:
    """Record one utterance from the microphone (sounddevice, imported here so that nothing else
    needs it): waits for speech, stops at its end (pocketsphinx's voice-activity endpointer), at
    most `max_seconds`. `on_state` is told "listening…", then "hearing speech…", then "done".
    Raises UsageError when sounddevice or its PortAudio library is missing, there is no input
    device, or nothing was said."""
    try:
        import sounddevice as sd
    except (ImportError, OSError) as exc:  # OSError: the PortAudio library is missing
        raise UsageError(
            f"--listen needs the sounddevice package and PortAudio ({exc}); use --audio FILE.wav instead"
        ) from None
    from pocketsphinx import Endpointer

    try:
        info = sd.query_devices(device, "input")
    except (ValueError, sd.PortAudioError) as exc:
        raise UsageError(
            f"no microphone to listen with ({str(exc).splitlines()[0]}); use --audio FILE.wav instead"
        ) from None
    ep = Endpointer(sample_rate=SAMPLE_RATE)
    frame = ep.frame_bytes // SAMPLE_WIDTH
    deadline = time.monotonic() + max_seconds
    on_state("listening…")
    try:
        with sd.RawInputStream(
            samplerate=SAMPLE_RATE, channels=1, dtype="int16", blocksize=frame, device=info["index"]
        ) as st:

            def frames() -> Iterator[bytes]:
                while time.monotonic() < deadline:
                    yield bytes(st.read(frame)[0])

            pcm = utterance(frames(), ep, on_state)
    except sd.PortAudioError as exc:
        raise UsageError(
            f"the microphone could not be read ({exc}); use --audio FILE.wav instead"
        ) from None
    on_state("done")
    if not pcm:
        raise UsageError(f"no speech heard in {max_seconds:.0f} s of listening")
    return Audio(pcm, "microphone")


def utterance(
    frames: Iterable[bytes], endpointer, on_state: Callable[[str], None] = lambda s: None
) -> bytes:
    """The first stretch of speech in a stream of frames (each `endpointer.frame_bytes` long, 16 kHz
    mono 16-bit): frames go through pocketsphinx's voice-activity `Endpointer`; reading stops when
    speech has started and ended (or the frames run out). Returns the speech PCM (b"" if none);
    tells `on_state` "hearing speech…" when speech starts."""
    speech: list[bytes] = []
    heard = False
    for data in frames:
        out = endpointer.process(data)
        if out is not None:
            speech.append(out)
        if endpointer.in_speech and not heard:
            heard = True
            on_state("hearing speech…")
        if heard and not endpointer.in_speech:
            break
    if endpointer.in_speech:  # the frames ran out mid-speech
        tail = endpointer.end_stream(bytes(endpointer.frame_bytes))  # a frame of silence flushes it
        if tail is not None:
            speech.append(tail)
    return b"".join(speech)
