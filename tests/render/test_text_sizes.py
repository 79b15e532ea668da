"""The smallest text of every game's golden images, as a player sees it on a phone
(tests/render/text_sizes.py: font size × 380 / image width). Carnival's is at least 10 px
there; the other games keep at least the sizes measured when their smallest texts were
raised (a change that shrinks one fails here and must say why)."""

from __future__ import annotations

import pytest

from tests.render.text_sizes import PHONE_WIDTH, golden_texts, phone_px, recording

FLOOR_PX: dict[str, int] = {"carnival": 20, "canterbury": 16, "heaven": 16, "eguan": 16, "illumination": 15,
                            "ora": 16}
"""The smallest font size (px) of each game's golden images, at the image's width (720 px,
Illumination's private view 540: 8 px and more on a 360-px phone; the phone limits themselves are
bench.phone's, tests/render/test_phone_layout.py)."""

KIND_FLOOR_PX: dict[tuple[str, str], int] = {("heaven", "private"): 19, ("eguan", "decision"): 20}
"""Higher floors of single image kinds: Heaven's hand is a list at 19 px of a 720-px image (9.5 px on a
phone); E Guan's placement preview, shown with a decision, 20 px of 720 (10 px on a phone)."""

TEXT_FLOOR_PX: list[tuple[str, str, str, int]] = [
    ("canterbury", "mid", "Hand ", 18),           # the pardoner lines: 9 px on a phone (720-px board)
    ("canterbury", "mid", "Circle ", 18),
    ("illumination", "final", "score ", 24),      # a player's score (its parts: the players' Look-at)
]
"""(game, image kind, start of a text, its least font size px) for texts raised on their own."""


@pytest.mark.parametrize("game_id", sorted(FLOOR_PX))
def test_the_smallest_text_of_each_game(game_id: str) -> None:
    drawn = golden_texts(game_id)
    assert drawn, game_id
    for kind, (image, seen) in drawn.items():
        least = min(seen, key=lambda d: d.size)
        assert least.size >= KIND_FLOOR_PX.get((game_id, kind), FLOOR_PX[game_id]), (kind, least)
        if game_id == "carnival":
            assert phone_px(least.size, image.width) >= 10.0 - 1e-9, (kind, least)


@pytest.mark.parametrize(("game_id", "kind", "start", "floor"), TEXT_FLOOR_PX)
def test_texts_raised_on_their_own_keep_their_size(game_id: str, kind: str, start: str, floor: int) -> None:
    _, seen = golden_texts(game_id)[kind]
    sizes = [d.size for d in seen if d.text.startswith(start)]
    assert sizes and min(sizes) >= floor, (start, sizes)


def test_the_recording_sees_every_text_drawn() -> None:
    from PIL import Image, ImageDraw

    from render.base import draw_text

    draw = ImageDraw.Draw(Image.new("RGB", (200, 50)))
    with recording() as seen:
        draw_text(draw, (0, 0), "Bot · Normal", size=20)
    assert [(d.size, d.text) for d in seen] == [(20, "Bot "), (20, "·"), (20, "Normal")]
    assert phone_px(29, 1100) == pytest.approx(29 * PHONE_WIDTH / 1100)
