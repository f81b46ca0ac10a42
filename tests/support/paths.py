"""Where the tests find the repository, its sample clips, the committed pose tracks and the shared real-archer
tracks: one place, so a test file's depth under tests/ never matters."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
SAMPLES = ROOT / "sample_videos"
OUTPUT = ROOT / "test-output"
GOLDEN = ROOT / "tests" / "golden"
REALPOSE = SHARED / "realpose"
