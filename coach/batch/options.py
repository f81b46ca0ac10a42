"""How a batch runs (`coach batch`'s flags as data)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass
class BatchOptions:
    workers: int | None = None  # None: one per core
    archer: str | None = None
    archer_from_folder: bool = False
    db: str | os.PathLike | None = None
    pack_path: str | None = None
    model: str | None = None
    profile_overrides: dict = field(default_factory=dict)  # handedness / draw_style / tolerance given explicitly
    engine: str = "process"  # process | ray
    address: str | None = None  # Ray cluster address (None: start or join a local instance)
    force: bool = False  # analyse again even if the store has it
    threads_per_worker: int = 1
    in_flight_per_worker: int = 2
    progress: bool = True
    full_rate: bool = False  # the pose model on every frame (default: adaptive, coach/sampling.py)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
