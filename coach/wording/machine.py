"""The engine's and analyser's own English (why a rule was not judged, session notes, errors, the camera check, a
live run's status) in the reader's language.

Those strings are written where the analysis happens (coach/engine.py, coach/analyzer.py, coach/pipeline.py,
coach/live/feeder.py) and stored or posted as they are; the dashboard, the reports and the terminal recognise each
known form here and word it from `coach/wording/text.py`. A form it does not know is shown as written rather than
hidden."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..results import uncertain_marks
from .text import label, t, word

_REASONS = {
    "phase not reached in this shot": "why_phase",
    "no setup pose to compare with": "why_setup",
    "the setup pose was not upright": "why_setup_bent",  # coach/engine.py NOT_UPRIGHT
    "landmarks hidden, out of frame, or foreshortened": "why_hidden",
    "not measurable in this shot": "why_unmeasurable",
    "the arrow pointed into the depth": "why_along_depth",  # coach/shot_view.py ALONG_DEPTH_REASON
    "the arrow's direction was not seen": "why_arrow_unseen",  # coach/shot_view.py ARROW_UNSEEN_REASON
    "too few shots measured to compare": "why_too_few_shots",  # a session rule (coach/engine.py TOO_FEW_SHOTS)
}
_VIEW = re.compile(r"^not judged from a (?P<view>[\w-]+) view$")
_UNCERTAIN = re.compile(r"^phase uncertain: (?P<marks>[\w ,]+)$")  # coach/engine.py PHASE_UNCERTAIN
_LET_DOWN = re.compile(r"^frames \d+–\d+ \((?P<t0>[\d.]+)–(?P<t1>[\d.]+) s\): a let-down")
_VIEW_LOST = re.compile(r"^frames \d+–\d+ \((?P<t0>[\d.]+)–(?P<t1>[\d.]+) s\): full draw, then the picture changed")
_VIDEO_ENDED = re.compile(r"^frames \d+–\d+ \((?P<t0>[\d.]+)–(?P<t1>[\d.]+) s\): full draw until the video ended")
# The draw seen and not analysed (coach/session_notes.py UNSEEN_NOTE); its frames are also read by
# benchmarks/metamorphic.py (a shot said uncertain, not lost unsaid).
UNSEEN_DRAW = re.compile(
    r"^frames (?P<first>\d+)–(?P<last>\d+) \((?P<t0>[\d.]+)–(?P<t1>[\d.]+) s\): the bow arm was up for "
    r"(?P<dur>[\d.]+) s but no full draw"
)
_HEARD_LOST = re.compile(
    r"^frames \d+–\d+ \((?P<t0>[\d.]+)–(?P<t1>[\d.]+) s\): full draw, then the picture lost the archer, but the "
    r"string was heard at (?P<t>[\d.]+) s: counted as shot (?P<n>\d+)"
)  # coach/session_notes.py HEARD_LOST_NOTE
_HEARD = re.compile(
    r"^frames \d+–\d+ \((?P<t0>[\d.]+)–(?P<t1>[\d.]+) s\): the draw hand was not seen, but the string was heard at "
    r"(?P<t>[\d.]+) s: counted as shot (?P<n>\d+)"
)  # coach/session_notes.py HEARD_NOTE
_TRUNCATED = re.compile(r"^video ended after (?P<n>\d+) of (?P<total>\d+) frames")
_SAMPLED = re.compile(
    r"^adaptive analysis: the pose model ran on (?P<runs>\d+) of (?P<frames>\d+) frames; (?P<sparse>\d+) frames in "
    r"(?P<n>\d+) stretches with nobody drawing were sampled at (?P<fps>[\d.]+) fps"
)  # coach/sampling.py SamplingLog.note
_ARROW_UNSEEN = re.compile(r"^shot (?P<n>\d+): the bow arm was hardly seen at full draw")  # ARROW_UNSEEN_NOTE
_ALONG_DEPTH = re.compile(r"^shot (?P<n>\d+): the arrow pointed into the depth \(the bow arm seen at (?P<pct>\d+) %")
_FIRST_SEEN = re.compile(
    r"^shot (?P<n>\d+): the archer was already at full draw when first seen \(frame (?P<a>\d+)\)"
)  # coach/session_notes.py FIRST_SEEN_NOTE
_MISREAD = re.compile(
    r"^shot (?P<n>\d+): the pose read the archer's shoulders in the hold at a width the follow-through never shows"
)  # coach/session_notes.py MISREAD_NOTE
_HAND_MISREAD = re.compile(r"^shot (?P<n>\d+): the pose misread the draw hand in the hold")  # HAND_MISREAD_NOTE
_CAMERA_ROLL = re.compile(r"^the camera was held about (?P<deg>\d+) deg off level")  # CAMERA_ROLL_NOTE
_OTHER_HAND = re.compile(
    r"^shot (?P<n>\d+): read as drawn with the (?P<side>left|right) hand, unlike the session's other shots"
)  # coach/session_notes.py OTHER_HAND_NOTE
_OTHER_HAND_ONLY = re.compile(
    r"^no full draw with the (?P<hand>left|right) hand, which the archer's profile gives, but with the "
    r"(?P<other>left|right) hand \(first at frame (?P<a>\d+), (?P<ta>[\d.]+) s\)"
)  # coach/session_notes.py OTHER_HAND_ONLY_NOTE
_MIRRORED = re.compile(
    r"^every full draw was drawn with the (?P<other>left|right) hand, though the archer's profile gives the "
    r"(?P<hand>left|right) hand"
)  # coach/session_notes.py MIRRORED_NOTE
_HIDDEN_HAND = re.compile(
    r"^the archer's (?P<side>left|right) hand was hidden in (?P<pct>\d+) % of the frames"
)  # coach/session_notes.py HIDDEN_HAND_NOTE
_INCOMPLETE = re.compile(r"^incomplete session: the analysis stopped after (?P<n>\d+) completed shot")
_ERRORS = {
    "no such file": "err_no_file",
    "is a folder, not a video file": "err_folder",
    "is empty (0 bytes)": "err_empty",
    "cannot be opened as a video (not a video file, or a codec OpenCV lacks)": "err_not_video",
    "has no decodable video frames (corrupt or truncated)": "err_no_frames",
    "no frames could be decoded": "err_no_frames",
    # coach/live/cli.py and coach/live/feeder.py: --no-drop with a camera or stream
    "--no-drop needs a video file: a camera or stream cannot wait for the analysis": "err_no_drop_camera",
    "frames can be held back for the analysis only from a video file": "err_no_drop_camera",
    # coach/dashboard/access.py live_source
    "a URL source is not allowed here (the operator can list it in COACH_LIVE_SOURCES)": "err_url_not_allowed",
    "is not allowed here: only cameras, sample_videos/ and uploads (see COACH_LIVE_SOURCES)": "err_not_allowed",
}
_NO_PERSON = re.compile(r"^no person found in any of its (?P<n>\d+) frames$")
_PROBLEMS = (
    (_NO_PERSON, "err_no_person"),
    (re.compile(r"^camera lost: no frames after (?P<n>\d+) retries$"), "err_camera_lost"),  # coach/live/feeder.py
    (re.compile(r"^camera (?P<n>\d+) does not exist or cannot be opened$"), "err_no_camera"),  # coach/capture.py
    (re.compile(r"^cannot be opened \((?P<why>.*)\)$"), "err_cannot_open"),  # coach/live/session.py open_source
)
_CAMERA = re.compile(r"^camera (?P<n>\d+)$")
_STATUS = (
    (  # coach/live/feeder.py Feeder.run
        re.compile(r"^(?P<name>.+): camera lost \(read failed\); retrying \((?P<n>\d+)/(?P<of>\d+)\) …$"),
        "status_retrying",
    ),
    (  # coach/live/feeder.py Feeder.run: the first frame after a reopen
        re.compile(r"^(?P<name>.+): reconnected after (?P<s>[\d.]+) s$"),
        "status_reconnected",
    ),
    (re.compile(r"^watching (?P<name>.+) \((?P<w>\d+)×(?P<h>\d+)\); q or Ctrl-C to stop$"), "status_watching"),
)
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


def certainty_text(shot: dict, lang: str) -> list[str]:
    """How sure a stored shot's phases are (its JSON: release confidence and the signals that agreed, the marks
    it is unsure of, the anchor's range), a line each in `lang` (the review page's shot tab)."""
    sep = "、" if lang == "zh" else ", "
    out = []
    conf = shot.get("release_confidence")
    if conf is not None:
        signals = sep.join(word("ev_" + e, lang, e) for e in shot.get("release_evidence") or [])
        key = "sure_release_seen" if signals else "sure_release"
        out.append(t(key, lang, conf=f"{conf:.2f}", signals=signals))
    unsure = uncertain_marks(shot.get("marks_confidence"), conf)
    if unsure:
        out.append(t("sure_uncertain", lang, marks=sep.join(t("mark_" + m, lang) for m in unsure)))
    a, b = shot.get("anchor_from_frame"), shot.get("anchor_frame")
    if a is not None and b is not None and a < b:
        out.append(t("sure_anchor_range", lang, a=a, b=b))
    return out


def certainty_both(shot: dict, first: str = "en") -> str:
    """`certainty_text` on one line in both languages, `first` first (the terminal, the reports)."""
    other = "zh" if first == "en" else "en"
    return "; ".join(f"{a} · {b}" for a, b in zip(certainty_text(shot, first), certainty_text(shot, other)))


# The session's consistency measures as shown (coach/metrics/session.py), each by its wording's key: a standard
# deviation follows its mean and is named "SD" alone.
CONSISTENCY_SHOWN = (
    ("cm_draw_length_cv", "draw_length_cv", "{:.1%}"),
    ("cm_anchor_spread", "anchor_spread", "{:.3f} SW"),
    ("cm_draw_time_mean", "draw_time_mean", "{:.2f} s"),
    ("cm_sd", "draw_time_sd", "{:.2f} s"),
    ("cm_hold_time_mean", "hold_time_mean", "{:.2f} s"),
    ("cm_sd", "hold_time_sd", "{:.2f} s"),
    ("cm_release_interval_mean", "release_interval_mean", "{:.1f} s"),
    ("cm_release_interval_cv", "release_interval_cv", "{:.1%}"),
)


def consistency_both(measures: dict[str, float]) -> list[str]:
    """The session's measured consistency, each "draw length CV 引滿長度變異係數 4.1%" (the terminal, the
    reports); a measure not measured (None, NaN) is left out."""
    out = []
    for key, name, fmt in CONSISTENCY_SHOWN:
        v = measures.get(name)
        if v is not None and v == v:  # not NaN
            out.append(f"{label(key)} {fmt.format(v)}")
    return out


def reason_both(reason: str | None, first: str = "en") -> str:
    """Why a rule was not judged, in both languages, `first` first (the terminal summary, the reports)."""
    return _both(reason_text, reason, first)


def note_both(note: str, first: str = "en") -> str:
    """A session note in both languages, `first` first; once if it is not known."""
    return _both(note_text, note, first)


def _both(word: Callable[[Any, str], str], text: Any, first: str) -> str:
    """`text` worded in `first`, then in the other language; once where both read the same (a form the table
    does not know is shown as written)."""
    one, other = word(text, first), word(text, "en" if first == "zh" else "zh")
    return one if one == other else f"{one} · {other}"


def note_text(note: str, lang: str) -> str:
    """A session note, in `lang`."""
    if note in _NOTES:
        return t(_NOTES[note], lang)
    for pattern, key in (
        (UNSEEN_DRAW, "note_unseen_draw"),
        (_HEARD, "note_heard_shot"),
        (_HEARD_LOST, "note_heard_lost"),
        (_TRUNCATED, "note_truncated"),
        (_SAMPLED, "note_sampled"),
        (_INCOMPLETE, "note_incomplete"),
        (_HIDDEN_HAND, "note_hidden_hand"),
        (_LET_DOWN, "note_let_down"),
        (_VIDEO_ENDED, "note_video_ended"),
        (_VIEW_LOST, "note_view_lost"),
        (_ALONG_DEPTH, "note_along_depth"),
        (_ARROW_UNSEEN, "note_arrow_unseen"),
        (_FIRST_SEEN, "note_first_seen_drawn"),
        (_MISREAD, "note_shoulders_misread"),
        (_HAND_MISREAD, "note_hand_misread"),
        (_OTHER_HAND, "note_other_hand"),
        (_OTHER_HAND_ONLY, "note_other_hand_only"),
        (_MIRRORED, "note_mirrored"),
        (_CAMERA_ROLL, "note_camera_roll"),
    ):
        m = pattern.match(note)
        if m:
            fmt = m.groupdict()
            for hand in ("side", "hand", "other"):  # the archer's left or right, worded too
                if hand in fmt:
                    fmt[hand] = t(f"side_{fmt[hand]}", lang)
            return t(key, lang, **fmt)
    return note


def error_text(error: str | None, lang: str) -> str:
    """A `CoachError` line ("clip.mp4: no such file") with its problem in `lang`; the file name stays (a camera's
    is worded too). A name may hold ": " and so may a problem ("camera lost: no frames …"): the first split whose
    problem is known is taken; a line with none is shown as written."""
    if not error:
        return ""
    at = 0
    while at >= 0:
        cut = error.find(": ", at)
        name, problem = (error[:cut], error[cut + 2 :]) if cut >= 0 else ("", error)
        worded = _problem_text(problem, lang)
        if worded is not None:
            return f"{source_name(name, lang)}: {worded}" if name else worded
        at = cut + 1 if cut >= 0 else -1
    return error


def error_both(error: str, first: str = "zh") -> str:
    """An error line in both languages, `first` first (the terminal); once if it is not known."""
    return _both(error_text, error, first)


def _problem_text(problem: str, lang: str) -> str | None:
    key = _ERRORS.get(problem)
    if key is not None:
        return t(key, lang)
    for pattern, key in _PROBLEMS:
        m = pattern.match(problem)
        if m:
            return t(key, lang, **m.groupdict())
    return None


def source_name(name: str, lang: str) -> str:
    """A live source's name as coach/live/feeder.py writes it: "camera 0" worded, a file or address as it is."""
    m = _CAMERA.match(name)
    return t("src_camera", lang, n=m["n"]) if m else name


def status_kind(status: str) -> str | None:
    """Which known status line this is ("status_retrying", "status_reconnected", …), None if unknown: what the
    page shows it as (a warning while the source is away, a passing note once it is back)."""
    for pattern, key in _STATUS:
        if pattern.match(status):
            return key
    return None


def status_text(status: str, lang: str) -> str:
    """A live run's status line (coach/live/feeder.py's while a lost camera is reopened and once it is back,
    coach/live/cli.py's when watching starts) in `lang`; an unknown one as written."""
    for pattern, key in _STATUS:
        m = pattern.match(status)
        if m:
            fmt = m.groupdict()
            return t(key, lang, **{**fmt, "name": source_name(fmt["name"], lang)})
    return status


def status_both(status: str, first: str = "zh") -> str:
    """A status line in both languages, `first` first (the terminal, read by whoever runs it); once if unknown."""
    return _both(status_text, status, first)


_CHECK = {
    "no one in the picture: stand where the camera sees all of you": "chk_nobody",
    "whole body in the picture": "chk_whole_body",
    "room for the bow arm at full draw": "chk_room",
    "too far from the camera: come closer": "chk_far",
    "too close to the camera: step back": "chk_close",
    "facing the camera (face-on): the view the most rules are judged from": "chk_face_on",
    "side-on to the camera (down-line): fewer rules can be judged; face the camera for all": "chk_down_line",
    "turned at an angle: face the camera square, or stand side-on": "chk_angle",
    "too dark: add light": "chk_dark",
    "too bright or back-lit: turn away from windows": "chk_bright",
    "flat, low-contrast picture: more light on the archer": "chk_flat",
    "light is fine": "chk_light_ok",
}
_EDGE = re.compile(r"^too near the (?P<side>left|right) edge: ")
_DISTANCE = re.compile(r"^good distance \(shoulders (?P<pct>\d+%) of the width\)$")
_NEEDS_VIEW = re.compile(r"^needs a (?P<views>.+) view \(this camera: (?P<view>[\w-]+)\)$")


def check_text(message: str, lang: str) -> str:
    """A camera-check finding or a "why not judged" reason (coach/live/check.py) in `lang`."""
    if message in _CHECK:
        return t(_CHECK[message], lang)
    m = _EDGE.match(message)
    if m:
        return t("chk_edge", lang, side=t(f"side_{m['side']}", lang))
    m = _DISTANCE.match(message)
    if m:
        return t("chk_distance", lang, pct=m["pct"])
    m = _NEEDS_VIEW.match(message)
    if m:
        views = (" 或 " if lang == "zh" else " or ").join(view_name(v, lang) for v in m["views"].split(" or "))
        return t("chk_needs_view", lang, views=views, view=view_name(m["view"], lang))
    if message.startswith("not observable"):
        return t("chk_not_observable", lang)
    return message
