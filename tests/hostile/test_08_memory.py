"""Issue 18 item 8: memory has a cap. A pose track is streamed frame by frame (memory is its frames' arrays,
not its text or parsed JSON: a 10⁶-frame track peaked at 10.3 GB), and one beyond the size limit (or a gzip
that expands beyond it) is refused with one line before it is read; video above 4K UHD is encoded scaled down
(x264's buffers grow with the frame: 8K peaked at 6.8 GB)."""

import gzip
import json
import subprocess
import sys

import av
import numpy as np
import pytest

from coach.pipeline import analyze_track
from coach.pose_frame import MAX_TRACK_BYTES, PoseTrack
from coach.render import MAX_ENCODED_PIXELS, draw_video, encoded_size
from coach.video_io import VideoWriter
from posture_rules.pack import load_pack
from tests.support.hostile_corpus import assert_clear, run_coach


def test_huge_pose_track_is_refused_unread(tmp_path):
    p = tmp_path / "huge.json"
    with open(p, "wb") as f:  # sparse: a file beyond the limit that costs no disk
        f.truncate(MAX_TRACK_BYTES + 1)
    assert_clear(run_coach("analyze", "--pose-track", p, timeout=60), "huge.json", "MB")


def test_gzip_bomb_is_refused(tmp_path):
    p = tmp_path / "bomb.json.gz"
    with gzip.open(p, "wb", compresslevel=1) as z:
        chunk = b" " * (1 << 20)
        for _ in range(MAX_TRACK_BYTES // len(chunk) + 2):
            z.write(chunk)
    assert p.stat().st_size < 8 << 20
    assert_clear(run_coach("analyze", "--pose-track", p, timeout=120), "bomb.json.gz", "expands")


MEASURE = """
import resource, sys
from coach.pose_frame import load_posetrack
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
track = load_posetrack(sys.argv[1])
print(len(track.frames), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base)
"""


def test_pose_track_is_streamed(tmp_path):
    """Peak memory while loading grows by about the frames' arrays, not by the JSON: a whole-file json.loads
    took more than 8 times the file's size (330 MB for this 38 MB track), streaming about 1.4 times."""
    rng = np.random.default_rng(0)
    lm, w = np.round(rng.random((33, 4)), 5).tolist(), np.round(rng.random((33, 3)), 5).tolist()
    p = tmp_path / "long.json"
    frames = ",".join(
        json.dumps({"index": i, "t_ms": round(i * 33.33, 2), "landmarks": lm, "world": w}, separators=(",", ":"))
        for i in range(20000)
    )
    p.write_text('{"schema":"coach.posetrack/1","fps":30.0,"width":640,"height":480,"frames":[' + frames + "]}")
    r = subprocess.run([sys.executable, "-c", MEASURE, str(p)], capture_output=True, text=True, timeout=300)
    n, grew_kb = map(int, r.stdout.split())
    assert n == 20000
    assert grew_kb * 1024 < 2.5 * p.stat().st_size, (grew_kb // 1024, p.stat().st_size >> 20)


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
