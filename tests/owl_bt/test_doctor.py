"""`owl-bt doctor`: one line per check with ok / -- / FAIL and a fix; exit 1 when something needed
fails. The VLM endpoint is a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import io
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rich.console import Console

from owl_bt import doctor_checks
from owl_bt.doctor import run_doctor
from owl_bt.errors import UsageError
from tests.support.cli import owl

VLM_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OWL_BT_VLM_MODEL", "OWL_BT_CONFIG")


class Models:
    """GET /v1/models on 127.0.0.1 answering `status` with the model ids `names`."""

    def __init__(self, names=("qwen2.5vl", "llava"), status=200):
        body = json.dumps({"object": "list", "data": [{"id": n} for n in names]}).encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 — http.server's naming
                self.send_response(status if self.path == "/v1/models" else 404)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> Models:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def no_vlm(monkeypatch, tmp_path):
    """No VLM configured: no endpoint variables, no owl-bt.toml in the working folder."""
    for name in VLM_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _doctor() -> tuple[int, dict[str, str]]:
    buf = io.StringIO()
    code = run_doctor(Console(file=buf, width=400), None, None)
    lines = {}
    for line in buf.getvalue().splitlines():
        mark, rest = line[:4].strip(), line[5:]
        lines[rest.split(":")[0]] = f"{mark} {rest}"
    return code, lines


@pytest.mark.slow
def test_every_part_a_run_uses_gets_one_line(no_vlm):
    code, lines = _doctor()
    assert code == 0
    for name in ("open3d (perception)", "graphviz (tree.png)", "pocketsphinx model (spoken goals)"):
        assert lines[name].startswith("ok "), lines[name]
    assert lines["microphone (run --listen)"].split()[0] in ("ok", "--")  # optional
    assert lines["VLM settings"].startswith("ok VLM settings: not configured: the offline grounder")
    assert "VLM endpoint" not in lines  # nothing to ask


@pytest.mark.slow
def test_graphviz_missing_is_a_failure_with_its_fix(no_vlm, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot there
    code, lines = _doctor()
    assert code == 1
    assert lines["graphviz (tree.png)"] == (
        "FAIL graphviz (tree.png): Graphviz's dot is not on PATH; fix: apt-get install graphviz"
    )


def test_a_configured_endpoint_that_answers(no_vlm, monkeypatch):
    with Models() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OWL_BT_VLM_MODEL", "qwen2.5vl")
        setup = doctor_checks.vlm_setup()
        assert setup.configured and setup.model == "qwen2.5vl"
        assert doctor_checks.vlm_settings(setup) == f"model 'qwen2.5vl' at {server.base_url}"
        assert doctor_checks.vlm_endpoint(setup) == (
            f"{server.base_url} answers; lists 2 model(s), 'qwen2.5vl' among them"
        )


def test_an_endpoint_without_the_model_or_refusing_the_key_fails(no_vlm, monkeypatch):
    with Models() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OWL_BT_VLM_MODEL", "gpt-9")
        with pytest.raises(doctor_checks.Problem, match="does not list the model 'gpt-9'") as err:
            doctor_checks.vlm_endpoint(doctor_checks.vlm_setup())
        assert "OWL_BT_VLM_MODEL" in err.value.hint
    with Models(status=401) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        with pytest.raises(doctor_checks.Problem, match=r"refuses the key \(HTTP 401\)"):
            doctor_checks.vlm_endpoint(doctor_checks.vlm_setup())


def test_an_endpoint_that_does_not_answer_fails_within_its_timeout(no_vlm, monkeypatch):
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OWL_BT_VLM_MODEL", "m")
        with pytest.raises(doctor_checks.Problem, match=r"does not answer within 0\.5 s"):
            doctor_checks.vlm_endpoint(doctor_checks.vlm_setup(), timeout_s=0.5)
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    with pytest.raises(doctor_checks.Problem, match="cannot be reached"):
        doctor_checks.vlm_endpoint(doctor_checks.vlm_setup())


def test_bad_settings_fail_the_settings_line(no_vlm, tmp_path):
    (tmp_path / "owl-bt.toml").write_text(
        '[vlm]\nbase_url = "http://127.0.0.1:1/v1"\nmodle = "x"\n'
    )
    with pytest.raises(doctor_checks.Problem, match="modle"):
        doctor_checks.vlm_setup()


def test_a_setup_file_without_a_vlm_table_configures_no_vlm(no_vlm, tmp_path):
    # An owl-bt.toml with only [robot]/[camera] failed the doctor for OPENAI_API_KEY
    (tmp_path / "owl-bt.toml").write_text('[robot]\nmodel = "ur5"\nip = "192.168.1.10"\n')
    assert doctor_checks.vlm_setup().configured is False


@pytest.mark.slow
def test_doctor_reports_each_part():
    proc = owl("doctor", stdin="", timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert any(
        line.startswith("ok   robot models:") and "kinova-gen3 (7 joints, tool 1.332 m" in line
        for line in lines
    )
    assert any("kortex_api (Kinova Gen3):" in line for line in lines)
    proc = owl(
        "doctor", "--backend", "rtde", "--ip", "127.0.0.1", stdin="", timeout=120
    )  # nothing listens: the arm does not answer
    assert proc.returncode == 1 and "FAIL UR at 127.0.0.1" in proc.stdout
    assert owl("doctor", "--backend", "kortex", stdin="", timeout=60).returncode == 2


def test_an_address_no_connection_could_use_is_a_usage_error():
    """Before: '10.0.0.1:abc' was dialled (and printed as '10.0.0.1🔤')."""
    with pytest.raises(UsageError, match="neither an IPv4 address nor a host name"):
        run_doctor(Console(file=io.StringIO()), "kortex", "10.0.0.1:abc")
