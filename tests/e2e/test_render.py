"""`coach render`: the annotated H.264 video decodes, has the source's frame count, and shows the overlay."""

from __future__ import annotations

from types import MappingProxyType

import av
import numpy as np
import pytest

from coach.cli import main
from posture_rules.pack import Profile

pytestmark = pytest.mark.e2e


def _frames(path):
    with av.open(str(path)) as c:
        stream = c.streams.video[0]
        codec = stream.codec_context.name
        return codec, [f.to_ndarray(format="bgr24") for f in c.decode(video=0)]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    from coach.render import render_video
    from tests.support.clips import sample_clip

    clip = sample_clip("short_1shot")
    out = tmp_path_factory.mktemp("render") / '渲染 "out" dir' / "annotated 箭.mp4"
    # an archer profile no bow arm can satisfy (a joint angle is at most 180°), so a fault is flagged at every
    # full draw and its highlight is checked whatever the rule engine's defaults flag on the clip
    strict = Profile(overrides=MappingProxyType({"straight_bow_arm": {"enter_below": 181.0, "exit_below": 181.0}}))
    r = render_video(clip, out, profile=strict)
    assert r.path == out and out.is_file()
    return clip, out, r


def test_annotated_video_decodes_as_h264_with_the_source_frame_count(rendered):
    clip, out, _ = rendered
    _, src = _frames(clip)
    codec, frames = _frames(out)
    assert codec == "h264"
    assert len(frames) == len(src)
    assert frames[0].shape[:2] == src[0].shape[:2] or frames[0].shape[0] - src[0].shape[0] in (0, 1)


def test_overlay_is_drawn_on_the_frames(rendered):
    clip, out, _ = rendered
    _, src = _frames(clip)
    _, frames = _frames(out)
    h, w = src[0].shape[:2]
    diff = [np.abs(a[:h, :w].astype(int) - b.astype(int)).mean() for a, b in zip(frames, src)]
    # the skeleton and the phase banner on (nearly) every frame with a person
    assert np.mean(np.array(diff) > 1.0) > 0.9


def test_faults_are_highlighted_in_their_frames(rendered):
    clip, out, r = rendered
    _, frames = _frames(out)

    def red(img):
        b, g, r = (img[..., i].astype(int) for i in range(3))
        return ((r > 180) & (g < 90) & (b < 90)).sum()

    reds = np.array([red(f) for f in frames])
    assert reds[:20].max() < 50, "no fault highlight during the setup"
    faults = [f for s in r.report.shots for f in s.faults if f.start_frame is not None]
    assert "straight_bow_arm" in {f.rule for f in faults}
    for f in faults:
        mid = (f.start_frame + f.end_frame) // 2
        assert reds[mid] > 300, (f.rule, mid)
    flagged = {i for f in faults for i in range(f.start_frame, f.end_frame + 1)}
    quiet = [i for i in range(len(frames)) if i not in flagged]
    assert np.median(reds[quiet]) < 50


def test_render_refuses_to_overwrite_without_force(rendered, capsys):
    clip, out, _ = rendered
    before = out.read_bytes()
    assert main(["render", str(clip), "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert "already exists" in err and str(out) in err
    assert out.read_bytes() == before


def test_render_of_a_missing_video_is_one_line(tmp_path, capsys):
    assert main(["render", str(tmp_path / "無.mp4"), "--out", str(tmp_path / "o.mp4")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "無.mp4" in err
    assert not (tmp_path / "o.mp4").exists()
    assert not list(tmp_path.glob(".coach-*")), "no temporary file left"
