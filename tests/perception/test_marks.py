"""perception.marks: label-free segments named by a vision-language model over numbered marks —
the answer's parsing, the marked image, and the whole path against a real chat-completions server
on 127.0.0.1 (tests/support/chat_server.py) through the `openai` backend, with offline names kept
where the model gives none or does not answer."""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pytest

from perception.marks import MARK_COLOUR, draw_marks, parse_answer
from tests.support.chat_server import ChatServer, Reply

KINDS = ["apple", "light_grey_region", "mug", "strawberry", "tomato_soup_can"]


def test_answers_are_read_line_by_line_and_unknown_kinds_are_none() -> None:
    text = "1: Mug\nMark 2 - tomato soup can\n3: unknown\n5: apples\n2: apple\n9: mug\nok"
    assert parse_answer(text, 5, KINDS) == ["mug", "tomato_soup_can", None, None, "apple"]
    assert parse_answer("", 2, KINDS) == [None, None]


def test_the_marked_image_outlines_and_numbers_each_segment() -> None:
    from PIL import Image

    rgb = np.full((60, 80, 3), 120, dtype=np.uint8)
    a = np.zeros((60, 80), dtype=bool)
    a[10:30, 10:30] = True
    b = np.zeros((60, 80), dtype=bool)
    b[35:55, 45:75] = True
    img = np.asarray(Image.open(io.BytesIO(draw_marks(rgb, [a, b]))))
    assert img.shape == (60, 80, 3)
    magenta = np.all(img == MARK_COLOUR, axis=2)
    assert magenta[10, 10:30].all() and magenta[35, 45:75].all()  # the outlines
    assert not magenta[0:5].any()  # nothing drawn away from the marks
    assert (img[15:25, 15:25] == 0).any()  # the number's dark box in the middle of mark 1


def _vlm(server: ChatServer, tmp_path):
    from owl_bt.language.openai_vlm import OpenAIVLM
    from owl_bt.language.settings import VLMSettings

    return OpenAIVLM(
        VLMSettings(
            base_url=server.base_url,
            model="test-vlm",
            api_key="",
            timeout_s=5.0,
            max_retries=0,
            cache_dir=tmp_path,
        )
    )


def _marked_pipeline(world, task, vlm):
    from owl_bt.episode import sim_camera_pipeline

    return sim_camera_pipeline(world, 0, unlabelled=True, instruction=task.instruction, vlm=vlm)


@pytest.mark.slow
def test_a_model_names_the_marks_and_the_pipeline_uses_its_kinds(unlabelled_scene, tmp_path):
    """Berry1: two marks, the strawberry's and the region's. The server names mark 1 an apple
    (so the name can only have come from the model) and mark 2 the region."""

    def respond(body: dict) -> Reply:
        text = body["messages"][0]["content"][0]["text"]
        count = int(re.search(r"with (\d+) numbered marks", text).group(1))
        lines = ["1: apple", "2: light_grey_region"] + [f"{i}: unknown" for i in range(3, 9)]
        return Reply("\n".join(lines[:count]))

    world, _, _, task = unlabelled_scene("berry1")
    with ChatServer(respond=respond) as server:
        camera, pipeline = _marked_pipeline(world, task, _vlm(server, tmp_path))
        res = pipeline.perceive(camera.capture())
    assert len(server.requests) == 1
    parts = server.requests[0]["body"]["messages"][0]["content"]
    assert "2 numbered marks" in parts[0]["text"] and "strawberry" in parts[0]["text"]
    png = base64.b64decode(parts[1]["image_url"]["url"].split(",", 1)[1])
    from PIL import Image

    sent = np.asarray(Image.open(io.BytesIO(png)))
    assert np.all(sent == MARK_COLOUR, axis=2).sum() > 100  # the marks are drawn on it
    assert {"apple", "light_grey_region"} <= set(res.objects) and "strawberry" not in res.objects
    assert res.objects["apple"].source == "vlm marks" and res.objects["apple"].state.kind == "apple"
    gt = world.ground_truth().objects["strawberry"].pose.position
    assert np.linalg.norm(np.subtract(res.objects["apple"].centroid, gt)) < 0.03


@pytest.mark.slow
def test_without_an_answer_the_offline_names_stay(unlabelled_scene, tmp_path):
    world, _, _, task = unlabelled_scene("berry1")
    script = [Reply("overloaded", 500, headers={"x-should-retry": "false"})]
    with ChatServer(script) as server:
        camera, pipeline = _marked_pipeline(world, task, _vlm(server, tmp_path))
        res = pipeline.perceive(camera.capture())
        assert len(server.requests) == 1
    assert {"strawberry", "light_grey_region"} <= set(res.objects)
    assert pipeline.detector.marks.last_error
