"""Errors a user can act on. The CLI prints them as one line and exits non-zero, never a traceback.

CoachError and RulePackError are posture_rules' (the rule pack's loader raises them and imports nothing of
`coach`); they are named here with the rest."""

from __future__ import annotations

from posture_rules.errors import CoachError, RulePackError

__all__ = ["CoachError", "PoseTrackError", "RulePackError", "VideoError"]


class VideoError(CoachError):
    """Missing, unreadable, truncated or corrupt video."""


class PoseTrackError(CoachError):
    """A pose-track file that is not coach.posetrack/1."""
