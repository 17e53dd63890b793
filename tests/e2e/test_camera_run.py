"""A whole run with the camera (real simulator, real RGB-D pipeline) writes its perception images
into the run folder."""

from __future__ import annotations

import pytest

from owl_bt.episode import EpisodeConfig, run_episode


@pytest.mark.slow
def test_a_run_with_the_camera_writes_perception_images(tmp_path):
    cfg = EpisodeConfig(
        "put the strawberry onto the light-grey region at the center of the table",
        "berry1",
        0,
        tmp_path / "run",
        vlm="oracle",
    )
    assert cfg.perception == "camera"
    res = run_episode(cfg)
    assert res.success, res.failure
    assert (res.run_dir / "perception-1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # one file per round, named by its round (no perception.png duplicating the latest)
    names = sorted(p.name for p in res.run_dir.glob("perception*.png"))
    assert names == [f"perception-{i}.png" for i in range(1, len(names) + 1)], names
