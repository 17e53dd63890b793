"""The checks of a run's options that need no run."""

from __future__ import annotations

import pytest

from owl_bt.episode_config import EpisodeConfig, check_ip, validate
from owl_bt.errors import UsageError


@pytest.mark.parametrize("ip", ["192.168.1.10", "ur5-lab", "arm.lab.example", "arm.local."])
def test_an_address_or_a_host_name_is_taken(ip):
    check_ip(ip)


@pytest.mark.parametrize(
    ("ip", "words"),
    [
        ("999.1.1.1", "is not an IPv4 address"),
        ("10.0.0.1:abc", "neither an IPv4 address nor a host name"),
        ("192.168.1.10:30004", "give no ':PORT'"),
        ("http://10.0.0.1", "neither an IPv4 address nor a host name"),
        ("arm lab", "neither an IPv4 address nor a host name"),
        ("-arm", "neither an IPv4 address nor a host name"),
        ("a..b", "neither an IPv4 address nor a host name"),
        ("x" * 64, "neither an IPv4 address nor a host name"),
    ],
)
def test_an_address_no_connection_could_use_is_refused(ip, words):
    """A dry run never contacts the arm: there these were taken and the run exited 0."""
    with pytest.raises(UsageError, match=words) as info:
        check_ip(ip)
    assert "\n" not in info.value.reason


@pytest.mark.parametrize("inside", ["", "frames"])
def test_frames_are_not_recorded_into_the_run_folder(tmp_path, inside):
    """Before: the frames made the run folder not empty, so the run went to <out>-2."""
    out = tmp_path / "run"
    cfg = EpisodeConfig("pick up the fork", "mug2", out=out, record_frames=out / inside)
    with pytest.raises(UsageError, match="--record-frames .* the run folder") as info:
        validate(cfg)
    assert "\n" not in info.value.reason and not out.exists()
    validate(EpisodeConfig("pick up the fork", "mug2", out=out, record_frames=tmp_path / "f"))


def test_frames_into_a_link_to_nothing_are_refused(tmp_path, link_to_nothing):
    """Before: 'owl-bt: --camera sim: [Errno 17] File exists' once the scene was built (and with a
    loop beside --out, a RuntimeError traceback)."""
    frames = link_to_nothing
    for out in (None, tmp_path / "run"):
        cfg = EpisodeConfig("pick up the fork", "mug2", out=out, record_frames=frames)
        with pytest.raises(UsageError, match="is a symbolic link to nothing"):
            validate(cfg)
