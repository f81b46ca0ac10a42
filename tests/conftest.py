from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.paths import OUTPUT

os.environ.setdefault("GLOG_minloglevel", "2")


@pytest.fixture(scope="session")
def output_dir() -> Path:
    OUTPUT.mkdir(exist_ok=True)
    return OUTPUT
