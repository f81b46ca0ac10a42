"""What the dashboard's AppTest tests share: the dashboard pointed at a temporary store (its store, media and
sample folders from the environment, the demo session off), a page of app.py opened in a language, and the
text a page shows."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from coach.dashboard.settings import Settings
from tests.support.paths import ROOT

PAGES = "coach/dashboard/pages"
TEXT_KINDS = ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success")


def point_dashboard_at(mp: pytest.MonkeyPatch, folder: Path, samples: Path | None = None) -> Settings:
    """The dashboard's store is folder/coach.db, its media folder/media, its samples `samples` (folder/samples
    unless given); no demo session is analysed on an empty store."""
    mp.setenv("COACH_DB", str(folder / "coach.db"))
    mp.setenv("COACH_MEDIA", str(folder / "media"))
    mp.setenv("COACH_SAMPLES", str(samples or folder / "samples"))
    mp.setenv("COACH_DEMO", "off")
    return Settings.from_env()


@contextlib.contextmanager
def dashboard_at(folder: Path, samples: Path | None = None) -> Iterator[Settings]:
    """point_dashboard_at for a module-scoped fixture (pytest's `monkeypatch` is function-scoped)."""
    mp = pytest.MonkeyPatch()
    try:
        yield point_dashboard_at(mp, folder, samples)
    finally:
        mp.undo()


def app(page: str | None = None, lang: str = "en") -> AppTest:
    """app.py in `lang`, switched to `page` (a file name under coach/dashboard/pages, without .py); not run."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["lang"] = lang
    if page:
        at.switch_page(f"{PAGES}/{page}.py")
    return at


def texts(at: AppTest) -> str:
    """Every heading, paragraph, caption and message the page shows, one a line."""
    return "\n".join(str(e.value) for kind in TEXT_KINDS for e in getattr(at, kind))


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
