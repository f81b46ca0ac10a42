"""The errors a user can act on, at the bottom of everything: the rule pack's loader raises them without
importing `coach`, and coach.errors re-exports them beside its own (video, pose track). Every entry point
prints a CoachError as one line and exits non-zero, never a traceback."""

from __future__ import annotations


class CoachError(Exception):
    """A problem with the user's input, described in one line that names the file and the problem."""

    def __init__(self, path: object, problem: str):
        self.path = str(path) if path is not None else None
        self.problem = problem
        super().__init__(f"{self.path}: {problem}" if self.path else problem)


class RulePackError(CoachError):
    """A rule pack that does not validate; names the file, the rule and the field."""

    def __init__(self, path: object, problem: str, rule: str | None = None, field: str | None = None):
        where = ", ".join(p for p in (f"rule {rule!r}" if rule else "", f"field {field!r}" if field else "") if p)
        super().__init__(path, f"{where}: {problem}" if where else problem)
        self.rule = rule
        self.field = field
