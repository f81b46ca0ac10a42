"""The engine's and analyser's own English (why a rule was not judged, session notes) in the reader's language.

Those strings are written where the analysis happens (coach/engine.py, coach/analyzer.py, coach/pipeline.py)
and stored as they are; the dashboard recognises each known form here and words it from the i18n table. A
form it does not know is shown as stored rather than hidden."""

from __future__ import annotations

import re

from .i18n import t

_REASONS = {
    "phase not reached in this shot": "why_phase",
    "no setup pose to compare with": "why_setup",
    "landmarks hidden, out of frame, or foreshortened": "why_hidden",
    "not measurable in this shot": "why_unmeasurable",
}
_VIEW = re.compile(r"^not judged from a (?P<view>[\w-]+) view$")
_UNCERTAIN = re.compile(r"^phase uncertain: (?P<marks>[\w ,]+)$")  # coach/engine.py PHASE_UNCERTAIN
_LET_DOWN = re.compile(r"^frames \d+–\d+ \((?P<t0>[\d.]+)–(?P<t1>[\d.]+) s\): a let-down")
_VIDEO_ENDED = re.compile(r"^frames \d+–\d+ \((?P<t0>[\d.]+)–(?P<t1>[\d.]+) s\): full draw until the video ended")
_UNSEEN = re.compile(
    r"^frames \d+–\d+ \((?P<t0>[\d.]+)–(?P<t1>[\d.]+) s\): the bow arm was up for (?P<dur>[\d.]+) s but no full draw"
)
_TRUNCATED = re.compile(r"^video ended after (?P<n>\d+) of (?P<total>\d+) frames")
_INCOMPLETE = re.compile(r"^incomplete session: the analysis stopped after (?P<n>\d+) completed shot")
_ERRORS = {
    "no such file": "err_no_file",
    "is a folder, not a video file": "err_folder",
    "is empty (0 bytes)": "err_empty",
    "cannot be opened as a video (not a video file, or a codec OpenCV lacks)": "err_not_video",
    "has no decodable video frames (corrupt or truncated)": "err_no_frames",
    "no frames could be decoded": "err_no_frames",
}
_NO_PERSON = re.compile(r"^no person found in any of its (?P<n>\d+) frames$")
_NOTES = {"no person found in the video": "note_no_person", "no shots found": "note_no_shots"}


def view_name(view: str, lang: str) -> str:
    key = f"view_{view}"  # face-on, down-line, other, high, any
    try:
        return t(key, lang)
    except KeyError:
        return view


def reason_text(reason: str | None, lang: str) -> str:
    """Why a rule was not judged, in `lang`."""
    if not reason:
        return "—"
    if reason in _REASONS:
        return t(_REASONS[reason], lang)
    m = _VIEW.match(reason)
    if m:
        return t("why_view", lang, view=view_name(m["view"], lang))
    m = _UNCERTAIN.match(reason)
    if m:
        marks = [t("mark_" + mk.strip().replace(" ", "_"), lang) for mk in m["marks"].split(",")]
        return t("why_phase_uncertain", lang, marks="、".join(marks) if lang == "zh" else ", ".join(marks))
    return reason


def note_text(note: str, lang: str) -> str:
    """A session note, in `lang`."""
    if note in _NOTES:
        return t(_NOTES[note], lang)
    for pattern, key in (
        (_UNSEEN, "note_unseen_draw"),
        (_TRUNCATED, "note_truncated"),
        (_INCOMPLETE, "note_incomplete"),
        (_LET_DOWN, "note_let_down"),
        (_VIDEO_ENDED, "note_video_ended"),
    ):
        m = pattern.match(note)
        if m:
            return t(key, lang, **m.groupdict())
    return note


def error_text(error: str | None, lang: str) -> str:
    """A `CoachError` line ("clip.mp4: no such file") with its problem in `lang`; the file name stays."""
    if not error:
        return ""
    name, sep, problem = error.rpartition(": ")
    if not sep:
        name, problem = "", error
    key = _ERRORS.get(problem)
    if key is not None:
        problem = t(key, lang)
    else:
        m = _NO_PERSON.match(problem)
        if m:
            problem = t("err_no_person", lang, n=m["n"])
    return f"{name}: {problem}" if name else problem
