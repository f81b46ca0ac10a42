"""Errors a user can act on. The CLI prints them as one line and exits non-zero, never a traceback."""

from __future__ import annotations


class CoachError(Exception):
    """A problem with the user's input, described in one line that names the file and the problem."""

    def __init__(self, path: object, problem: str):
        self.path = str(path) if path is not None else None
        self.problem = problem
        super().__init__(f"{self.path}: {problem}" if self.path else problem)


class VideoError(CoachError):
    """Missing, unreadable, truncated or corrupt video."""


class RulePackError(CoachError):
    """A rule pack that does not validate; names the file, the rule and the field."""

    def __init__(self, path: object, problem: str, rule: str | None = None, field: str | None = None):
        where = ", ".join(p for p in (f"rule {rule!r}" if rule else "", f"field {field!r}" if field else "") if p)
        super().__init__(path, f"{where}: {problem}" if where else problem)
        self.rule = rule
        self.field = field


class PoseTrackError(CoachError):
    """A pose-track file that is not coach.posetrack/1."""
