"""The overlay: skeleton, phase and faults (with Chinese cues) drawn on BGR frames, fonts loaded once."""

from __future__ import annotations

import numpy as np
import pytest

from coach.errors import CoachError
from coach.landmarks import INDEX
from coach.overlay import FAULT, Overlay, PoseView, TextSprites, cjk_font_path
from posture_rules.pack import load_pack


def _pose(w: int = 640, h: int = 360) -> PoseView:
    xy = np.full((33, 2), np.nan, np.float32)
    pts = {
        "nose": (320, 60),
        "left_ear": (330, 58),
        "right_ear": (310, 58),
        "left_shoulder": (360, 110),
        "right_shoulder": (280, 110),
        "left_elbow": (450, 110),
        "right_elbow": (230, 120),
        "left_wrist": (540, 110),
        "right_wrist": (300, 100),
        "left_index": (550, 110),
        "right_index": (305, 98),
        "left_hip": (345, 220),
        "right_hip": (295, 220),
        "left_knee": (350, 290),
        "right_knee": (290, 290),
        "left_ankle": (355, 350),
        "right_ankle": (285, 350),
    }
    for name, p in pts.items():
        xy[INDEX[name]] = p
    return PoseView(xy, np.ones(33, np.float32), "hold", 0, ())


def _red(img: np.ndarray) -> np.ndarray:
    b, g, r = (img[..., i].astype(int) for i in range(3))
    return (r > 180) & (g < 90) & (b < 90)


def test_font_ships_with_the_project_and_has_the_classics_glyphs():
    from fontTools.ttLib import TTCollection, TTFont

    p = cjk_font_path()
    assert p.is_file()
    font = TTCollection(str(p)).fonts[0] if p.suffix == ".ttc" else TTFont(str(p))
    cmap = font.getBestCmap()
    text = "".join(r.quote + r.cue_zh + r.name_zh + r.section for r in load_pack().rules)
    missing = sorted({ch for ch in text if not ch.isspace() and ord(ch) not in cmap})
    assert not missing, f"the font lacks {missing}"
    assert "glyf" in font, "TrueType outlines, so the PDF can embed it"


def test_bad_font_env_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("COACH_FONT", str(tmp_path / "none.ttf"))
    cjk_font_path.cache_clear()
    try:
        with pytest.raises(CoachError, match="none.ttf"):
            cjk_font_path()
    finally:
        cjk_font_path.cache_clear()


def test_draws_skeleton_phase_and_fault_with_chinese_cue():
    pack = load_pack()
    ov = Overlay(pack, "right")
    blank = np.full((360, 640, 3), 90, np.uint8)
    plain = ov.draw(blank.copy(), _pose())
    assert (plain != 90).any(axis=2).sum() > 500  # skeleton and the phase banner
    assert not _red(plain).any()
    img = ov.draw(blank.copy(), _pose(), ["cup_of_water"])
    red = _red(img)
    assert red.sum() > 300
    # highlighted at the draw elbow (right elbow for a right-handed archer)
    x, y = 230, 120
    assert red[y - 25 : y + 25, x - 25 : x + 25].any()
    # the Chinese cue is drawn as glyphs: a white-text label on red exists
    sprite, _ = ov.text.sprite(pack.by_id["cup_of_water"].cue_zh, 14, (255, 255, 255))
    assert sprite.shape[1] > 5 * 14 and sprite.max() > 200


def test_left_handed_archer_gets_the_other_elbow():
    pack = load_pack()
    ov = Overlay(pack, "left")
    img = ov.draw(np.full((360, 640, 3), 90, np.uint8), _pose(), ["cup_of_water"])
    red = _red(img)
    x, y = 450, 110  # left elbow draws for a left-handed archer
    assert red[y - 25 : y + 25, x - 25 : x + 25].any()


def test_missing_landmarks_unknown_rules_and_thumbnails_are_fine():
    ov = Overlay(load_pack())
    img = np.zeros((180, 320, 3), np.uint8)
    nan = PoseView(np.full((33, 2), np.nan, np.float32), np.zeros(33, np.float32), "setup", None, ())
    ov.draw(img, nan, ["no_such_rule", "cup_of_water"])
    ov.draw(img, PoseView(None, None), [], title="標題 title")
    ov.draw(img, _pose(), ["cup_of_water"], scale=0.5)  # landmarks in 640×360 source pixels
    assert _red(img).any()


def test_text_sprites_are_cached_and_clipped():
    ts = TextSprites()
    a = ts.sprite("滿弓", 20, (255, 255, 255))
    assert ts.sprite("滿弓", 20, (255, 255, 255)) is a
    img = np.zeros((40, 60, 3), np.uint8)
    ts.put(img, "滿弓審固發矢", (-10, 30), 20)  # partly outside: clipped, no error
    ts.put(img, "滿弓", (100, 100), 20)  # wholly outside
    assert img.any()


def test_overlay_reuses_its_buffers_per_frame():
    """Steady-state drawing of the same labels renders no new text."""
    ov = Overlay(load_pack())
    img = np.zeros((360, 640, 3), np.uint8)
    ov.draw(img, _pose(), ["cup_of_water"])
    n = len(ov.text._cache)
    for _ in range(5):
        ov.draw(img, _pose(), ["cup_of_water"])
    assert len(ov.text._cache) == n
    assert FAULT == (40, 40, 235)
