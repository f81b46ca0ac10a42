"""Where the dashboard keeps things, from the environment with embedded defaults:

- `COACH_DB`: the session store (default `./coach.db`);
- `COACH_MEDIA`: annotated videos and uploads (default: `<db name>-media/` beside the store);
- `COACH_SAMPLES`: the sample clips offered on the Analyze page (default: the repository's `sample_videos/`);
- `COACH_DEMO`: the sample analysed on first start when the store is empty (default `short_1shot`;
  `off` turns it off);
- `COACH_UPLOAD_MB`: the largest upload the server keeps (default 500, as `server.maxUploadSize`);
- `COACH_UPLOADS_CAP_MB`: the most all kept uploads may take together; the oldest go first (default 2048);
- `COACH_LIVE_SOURCES`: what the Live page may open besides cameras, samples and uploads (coach/dashboard/access.py).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..store import Store, default_db_path
from ..store.media import annotated_video, media_dir

REPO = Path(__file__).resolve().parents[2]
# The sample clips listed, and a session's own video offered to the player where no annotated one was drawn.
# What an upload may be is coach.capture.VIDEO_EXTENSIONS (what the analysis reads, not what a browser plays).
VIDEO_SUFFIXES = (".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm")
DEMO_ARCHER = "示範射手 Demo"


def _mb(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else default


@dataclass(frozen=True, slots=True)
class Settings:
    db: Path
    media: Path
    samples: Path
    demo: str | None
    upload_max_mb: int = 500
    uploads_cap_mb: int = 2048

    @classmethod
    def from_env(cls) -> Settings:
        db = default_db_path().resolve()
        media = media_dir(db)
        samples = Path(os.environ.get("COACH_SAMPLES") or REPO / "sample_videos")
        demo = os.environ.get("COACH_DEMO", "short_1shot").strip()
        return cls(
            db,
            media.resolve(),
            samples.resolve(),
            None if demo.lower() in ("", "off", "0", "no") else demo,
            _mb("COACH_UPLOAD_MB", 500),
            _mb("COACH_UPLOADS_CAP_MB", 2048),
        )

    @property
    def uploads(self) -> Path:
        return self.media / "uploads"

    def annotated_video(self, sid: int) -> Path:
        return annotated_video(self.media, sid)

    def sample_clips(self) -> list[Path]:
        if not self.samples.is_dir():
            return []
        return sorted(p for p in self.samples.iterdir() if p.suffix.lower() in VIDEO_SUFFIXES and p.is_file())

    def demo_clip(self) -> Path | None:
        if not self.demo:
            return None
        clips = self.sample_clips()
        return next((p for p in clips if p.stem == self.demo), None)

    @contextmanager
    def store(self):
        """A store connection for one script run or one worker (SQLite connections stay in their thread)."""
        s = Store.open(self.db)
        try:
            yield s
        finally:
            s.close()
