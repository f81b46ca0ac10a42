"""Issue 18 item 8: memory has a cap. A pose track beyond the size limit (or a gzip that expands beyond it) is
refused with one line before it is read; video above 4K UHD is encoded scaled down (x264's buffers grow with
the frame: 8K peaked at 6.8 GB)."""

import gzip

import av
import numpy as np
import pytest
from hostile_corpus import assert_clear, run_coach

from coach.pipeline import analyze_track
from coach.pose_frame import MAX_TRACK_BYTES, PoseTrack
from coach.render import MAX_ENCODED_PIXELS, draw_video, encoded_size
from coach.video_io import VideoWriter
from posture_rules.pack import load_pack


def test_huge_pose_track_is_refused_unread(tmp_path):
    p = tmp_path / "huge.json"
    with open(p, "wb") as f:  # sparse: a 1.2 GB file that costs no disk
        f.truncate(1_200_000_000)
    assert_clear(run_coach("analyze", "--pose-track", p, timeout=60), "huge.json", "MB")


def test_gzip_bomb_is_refused(tmp_path):
    p = tmp_path / "bomb.json.gz"
    with gzip.open(p, "wb", compresslevel=9) as z:
        chunk = b" " * (1 << 20)
        for _ in range(MAX_TRACK_BYTES // len(chunk) + 2):
            z.write(chunk)
    assert p.stat().st_size < 2 << 20
    assert_clear(run_coach("analyze", "--pose-track", p, timeout=120), "bomb.json.gz", "expands")


@pytest.mark.parametrize("w,h", [(7680, 4320), (3840, 2160), (641, 479)])
def test_encoded_size(w, h):
    ew, eh = encoded_size(w, h)
    assert ew * eh <= max(MAX_ENCODED_PIXELS, w * h if w * h <= MAX_ENCODED_PIXELS else 0)
    assert ew % 2 == 0 or (ew, eh) == (w, h)
    assert abs(ew / eh - w / h) < 0.01


def test_above_4k_is_written_scaled_down(tmp_path):
    w, h = 4480, 2520  # above 4K UHD's pixel count, small enough to make here
    src = tmp_path / "big.mp4"
    with VideoWriter(src, w, h, 30, preset="ultrafast") as vw:
        for i in range(2):
            vw.write(np.full((h, w, 3), 60 + i, np.uint8))
    out = tmp_path / "out.mp4"
    report = analyze_track(PoseTrack(30.0, w, h, []))
    assert draw_video(src, out, report, {}, load_pack(), preset="ultrafast") == 2
    with av.open(str(out)) as c:
        s = c.streams.video[0]
        assert s.width * s.height <= MAX_ENCODED_PIXELS and s.width < w
