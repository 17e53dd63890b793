"""`owl-bt run --audio/--listen/--asr openai` end to end: the real CLI in a subprocess; the OpenAI
transcription API is a real HTTP server on 127.0.0.1 speaking its wire format (no patched client);
audio that is not a WAV file is named in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.cli import here, last_line

AUDIO = Path(__file__).parents[1] / "fixtures" / "audio"


def owl_here(*args: str) -> tuple[int, str]:
    """The CLI in this process (typer's runner): (exit code, stderr) — for the quick usage errors."""
    from typer.testing import CliRunner

    from owl_bt.cli import app

    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.stderr


def owl(*args: str, env: dict | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "owl_bt.cli", *args],
        capture_output=True,
        text=True,
        timeout=240,
        input=stdin,
        env={**os.environ, **(env or {})},
    )


class _Transcriptions(BaseHTTPRequestHandler):
    """POST /v1/audio/transcriptions: checks the multipart upload, answers {"text": …}."""

    answer = "Put the strawberry onto the light-grey region."
    seen: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        if self.headers.get("Authorization") != "Bearer sk-test":
            self._reply(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                    }
                },
            )
        elif (
            self.path != "/v1/audio/transcriptions"
            or b"RIFF" not in body
            or b'name="model"' not in body
        ):
            self._reply(400, {"error": {"message": "bad upload", "type": "invalid_request_error"}})
        else:
            self._reply(200, {"text": self.answer})

    def _reply(self, code: int, data: dict) -> None:
        raw = json.dumps(data).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Transcriptions)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


@pytest.mark.slow
def test_audio_goal_runs_and_the_report_shows_what_was_heard(tmp_path):
    out = tmp_path / "run"
    r = owl(
        "run", "--audio", str(AUDIO / "berry1.wav"), "--task", "berry1", "--out", str(out), "--json"
    )
    assert r.returncode == 0, r.stderr
    assert (
        "heard (sphinx" in r.stderr and "put the strawberry onto the light grey region" in r.stderr
    )
    assert json.loads(r.stdout.strip().splitlines()[-1])["success"] is True
    speech = json.loads((out / "speech.json").read_text())
    assert (
        speech["text"] == "put the strawberry onto the light grey region at the center of the table"
    )
    assert (out / "goal.wav").read_bytes() == (AUDIO / "berry1.wav").read_bytes()
    report = (out / "report.md").read_text()
    assert (
        "heard **“put the strawberry onto the light grey region at the center of the table”**"
        in report
    )


@pytest.mark.slow
def test_interactive_correction_replaces_the_heard_goal(tmp_path):
    out = tmp_path / "run"
    r = owl(
        "run",
        "--audio",
        str(AUDIO / "berry2.wav"),
        "--task",
        "berry2",
        "--out",
        str(out),
        "--interactive",
        "--json",
        stdin="put the strawberry onto the light grey region\n",
    )
    assert r.returncode == 0, r.stderr
    assert (
        json.loads((out / "plan.json").read_text())["instruction"]
        == "put the strawberry onto the light grey region"
    )
    assert json.loads((out / "speech.json").read_text())["confirmed"] is True
    r = owl(
        "run",
        "--audio",
        str(AUDIO / "berry2.wav"),
        "--task",
        "berry2",
        "--out",
        str(tmp_path / "no"),
        "--interactive",
        stdin="n\n",
    )
    assert r.returncode == 2 and "not confirmed" in r.stderr and not (tmp_path / "no").exists()


def test_listen_without_a_microphone_is_one_line_exit_2():
    code, stderr = owl_here("run", "--listen", "--task", "berry1")
    assert code == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("owl-bt: ") and "--audio" in lines[0], stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (
            ["put the strawberry on the plate", "--audio", str(AUDIO / "berry1.wav")],
            "either as text or",
        ),
        (["--audio", str(AUDIO / "berry1.wav"), "--listen"], "exclude each other"),
        (
            ["--audio", str(AUDIO / "berry1.wav"), "--asr", "whisper-local"],
            "'whisper-local' is not one of 'sphinx', 'openai'",
        ),
        (
            ["put the strawberry on the light grey region", "--asr", "nosuch"],
            "'nosuch' is not one of 'sphinx', 'openai'",
        ),  # no --audio
        (["--audio", str(AUDIO / "citrus.wav"), "--task", "berry1"], "meant for another scene"),
    ],
)
def test_usage_errors(args, words):
    code, stderr = owl_here("run", *args)
    assert code == 2 and words in stderr and "Traceback" not in stderr


def test_a_sample_rate_out_of_range_through_the_cli(tmp_path):
    import wave

    with (
        wave.open(str(AUDIO / "coffee.wav")) as src,
        wave.open(str(tmp_path / "slow.wav"), "wb") as dst,
    ):
        dst.setnchannels(1)
        dst.setsampwidth(2)
        dst.setframerate(4000)
        dst.writeframes(src.readframes(src.getnframes()))
    code, stderr = owl_here("run", "--audio", str(tmp_path / "slow.wav"), "--task", "coffee")
    assert code == 2 and "4000 Hz" in stderr and "sox" in stderr


@pytest.mark.slow
def test_openai_transcription_through_a_local_server(server, tmp_path):
    env = {
        "OPENAI_BASE_URL": server,
        "OPENAI_API_KEY": "sk-test",
        "OWL_BT_ASR_MODEL": "whisper-test",
    }
    out = tmp_path / "run"
    r = owl(
        "run",
        "--audio",
        str(AUDIO / "berry1.wav"),
        "--asr",
        "openai",
        "--task",
        "berry1",
        "--out",
        str(out),
        env=env,
    )
    assert r.returncode == 0, r.stderr
    req = _Transcriptions.seen[-1]
    assert (
        req["path"] == "/v1/audio/transcriptions"
        and b"whisper-test" in req["body"]
        and b"strawberry" in req["body"]
    )
    assert (
        json.loads((out / "speech.json").read_text())["text"]
        == "put the strawberry onto the light grey region"
    )
    bad = owl(
        "run",
        "--audio",
        str(AUDIO / "berry1.wav"),
        "--asr",
        "openai",
        "--task",
        "berry1",
        env={**env, "OPENAI_API_KEY": "sk-wrong"},
    )
    assert bad.returncode == 2 and "HTTP 401" in bad.stderr and "Incorrect API key" in bad.stderr
    down = owl(
        "run",
        "--audio",
        str(AUDIO / "berry1.wav"),
        "--asr",
        "openai",
        "--task",
        "berry1",
        env={**env, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
    )
    assert down.returncode == 2 and "cannot be reached" in down.stderr
    nokey = owl(
        "run",
        "--audio",
        str(AUDIO / "berry1.wav"),
        "--asr",
        "openai",
        "--task",
        "berry1",
        env={"OPENAI_API_KEY": ""},
    )
    assert nokey.returncode == 2 and "OPENAI_API_KEY" in nokey.stderr


def test_audio_that_is_not_a_wav_file_is_named_without_empty_parentheses(tmp_path):
    (tmp_path / "note.wav").write_text("hello\n")
    (tmp_path / "empty.wav").write_bytes(b"")
    for name, why in (("note.wav", "it ends inside its header"), ("empty.wav", "it is empty")):
        res = here("run", "--audio", str(tmp_path / name), "--task", "berry1")
        assert res.exit_code == 2
        assert last_line(res.stderr).startswith(
            f"owl-bt: {name} is not a PCM WAV file ({why}); convert it"
        ), res.stderr
    res = here("run", "--audio", "/dev/zero", "--task", "berry1")  # it said "does not exist"
    assert (
        res.exit_code == 2
        and last_line(res.stderr)
        == "owl-bt: audio file /dev/zero is not a regular file; give a WAV file"
    )
