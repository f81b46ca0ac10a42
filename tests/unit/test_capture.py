"""FrameSource: container timestamps, rotation metadata, any OpenCV source."""

import struct

import numpy as np
import pytest

from coach.capture import FrameSource, parse_source
from coach.video_io import VideoWriter


def _rotate_90(src, dst):
    """Write the 90° display matrix into the track header, as a phone held upright does."""
    b = bytearray(src.read_bytes())
    i = b.find(b"tkhd")
    version = b[i + 4]
    off = i + 8 + (8 if version == 0 else 16) + 4 + 4 + (4 if version == 0 else 8) + 8 + 8
    assert struct.unpack(">9i", b[off : off + 36])[0] == 65536  # identity before
    b[off : off + 36] = struct.pack(">9i", 0, 65536, 0, -65536, 0, 0, 0, 0, 1 << 30)
    dst.write_bytes(bytes(b))


def test_phone_rotation_is_honoured(tmp_path):
    src = tmp_path / "landscape.mp4"
    with VideoWriter(src, 64, 32, 30) as w:
        for _ in range(5):
            img = np.zeros((32, 64, 3), np.uint8)
            img[:, :32] = 255  # left half white
            w.write(img)
    rotated = tmp_path / "手機 portrait.mp4"
    _rotate_90(src, rotated)
    with FrameSource(rotated) as s:
        frames = list(s)
    assert (s.width, s.height) == (32, 64)
    img = frames[0].image
    assert img.shape[:2] == (64, 32)
    # 90° clockwise: the white left half becomes the top half
    assert img[:32].mean() > 200 and img[32:].mean() < 50


def test_timestamps_come_from_the_container_at_60fps(tmp_path):
    p = tmp_path / "a.mp4"
    with VideoWriter(p, 64, 48, 60) as w:
        for _ in range(12):
            w.write(np.zeros((48, 64, 3), np.uint8))
    with FrameSource(p) as s:
        t = [f.t_ms for f in s]
    assert s.fps == pytest.approx(60.0)
    assert np.allclose(np.diff(t), 1000 / 60, atol=0.5)


def test_sources_parse():
    assert parse_source("0") == 0 and parse_source(2) == 2
    assert parse_source("rtsp://cam/stream") == "rtsp://cam/stream"
    assert parse_source("videos/射箭.mp4") == "videos/射箭.mp4"
