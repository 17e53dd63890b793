"""The settings file's [vlm] table and the endpoint's address are checked before any client is made:
each bad value is one line (UsageError, exit 2), never a traceback from the HTTP client; a settings
file that is a device or a folder is named."""

from __future__ import annotations

import pytest

from owl_bt.errors import UsageError
from owl_bt.language.settings import MAX_RETRIES, load_settings

ENV = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OWL_BT_VLM_MODEL": "m"}


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ("base_url = 5", "base_url: input should be a valid string"),
        ("cache_dir = 7", "cache_dir: input should be a valid string"),
        ("temperature = nan", "temperature: input should be a finite number"),
        (
            "max_retries = 100000000",
            f"max_retries: input should be less than or equal to {MAX_RETRIES}",
        ),
        ("model = []", "model: input should be a valid string"),
        ("bogus = 1", "bogus: not a setting (the [vlm] keys are base_url, model,"),
        ("timeout_s = 0", "timeout_s: input should be greater than 0"),
    ],
)
def test_a_bad_value_in_the_vlm_table_is_named(tmp_path, table, why):
    path = tmp_path / "owl-bt.toml"
    path.write_text(f"[vlm]\n{table}\n")
    with pytest.raises(
        UsageError,
        match="^" + f"settings file {path}: [vlm] {why}".replace("[", r"\[").replace("(", r"\("),
    ):
        load_settings({**ENV, "OWL_BT_CONFIG": str(path)})


def test_whole_numbers_are_taken_for_seconds_and_a_nested_file_is_refused(tmp_path):
    path = tmp_path / "owl-bt.toml"
    path.write_text("[vlm]\ntimeout_s = 30\nmax_retries = 2\ntemperature = 0\n")
    got = load_settings({**ENV, "OWL_BT_CONFIG": str(path)})
    assert (got.timeout_s, got.max_retries, got.temperature) == (30.0, 2, 0.0)
    path.write_text(
        "a = " + "[" * 3000 + "]" * 3000 + "\n"
    )  # tomllib recursed until RecursionError
    with pytest.raises(UsageError, match="nested too deeply"):
        load_settings({**ENV, "OWL_BT_CONFIG": str(path)})


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:9/\n", r"it holds '\\n'"),
        ("http://127.0.0.1:9/\r", r"it holds '\\r'"),
        ("http://[::1", "Invalid IPv6 URL"),
        ("localhost:8000", "give http://host"),
        ("http://h:abc/", "Port"),
    ],
)
def test_an_endpoint_that_is_no_url_is_named(tmp_path, url, why):
    with pytest.raises(UsageError, match=f"^OPENAI_BASE_URL is not a URL .*{why}"):
        load_settings({**ENV, "OPENAI_BASE_URL": url, "OWL_BT_CONFIG": str(tmp_path / "none.toml")})
    assert (
        load_settings({**ENV, "OWL_BT_CONFIG": str(tmp_path / "none.toml")}).base_url
        == "http://127.0.0.1:9/v1"
    )


def test_a_key_an_http_header_cannot_carry_and_a_control_character_in_the_cache_folder_are_refused(
    tmp_path,
):
    # 'é' failed the run after set-up with a codec error; a NUL in cache_dir as "embedded null byte"
    none = str(tmp_path / "none.toml")
    with pytest.raises(
        UsageError, match="^OPENAI_API_KEY holds a character an HTTP header cannot carry"
    ):
        load_settings({**ENV, "OPENAI_API_KEY": "é", "OWL_BT_CONFIG": none})
    with pytest.raises(UsageError, match="holds a control character"):
        load_settings({**ENV, "OWL_BT_VLM_CACHE": "a\x00b", "OWL_BT_CONFIG": none})


def test_a_settings_file_that_is_a_device_or_folder_is_named(tmp_path):
    """Break-it: OWL_BT_CONFIG=/dev/zero (or a folder) was silently ignored; a missing one still means no file."""
    from owl_bt.errors import UsageError
    from owl_bt.language.settings import load_settings

    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OWL_BT_VLM_MODEL": "m"}
    for path, why in (("/dev/zero", "is not a regular file"), (str(tmp_path), "is a folder")):
        with pytest.raises(UsageError, match=why):
            load_settings({**env, "OWL_BT_CONFIG": path})
    assert load_settings({**env, "OWL_BT_CONFIG": str(tmp_path / "none.toml")}).model == "m"
    (tmp_path / "bom.toml").write_bytes(b'\xef\xbb\xbf[vlm]\nmodel = "from-file"\n')
    assert (
        load_settings(
            {
                "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
                "OWL_BT_CONFIG": str(tmp_path / "bom.toml"),
            }
        ).model
        == "from-file"
    )
