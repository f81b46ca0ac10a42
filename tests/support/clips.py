"""The sample clips the end-to-end tests analyse, rendered once into test-output/ when sample_videos/ lacks one."""

from __future__ import annotations

from pathlib import Path

from tests.support.paths import OUTPUT, SAMPLES


def sample_clip(name: str) -> Path:
    """A sample clip: the committed one when its sidecar is there, else rendered once into test-output/."""
    p = SAMPLES / f"{name}.mp4"
    if p.exists() and p.with_suffix("").with_suffix(".truth.json").exists():
        return p
    out = OUTPUT / "clips"
    q = out / f"{name}.mp4"
    if not (out / f"{name}.truth.json").exists():
        from coach.synth.generate import generate_clip
        from coach.synth.scenarios import SCENARIOS

        generate_clip(SCENARIOS[name], out)
    return q
