"""The one streaming core: `Analyzer.push(frame)` serves the webcam, the browser camera and recorded files.

    Frame ─► PoseEstimator ─► PoseFrame ─► BodyStream (smoothing, SW units) ─► PhaseTracker ─► RuleEngine
                                                                              └─► FrameResult (live view)
                                                          completed shot ─► CompletedShot ─► listeners (recording)

Recorded video uses the centred (zero-phase) smoother and live video the causal One-Euro filter; nothing
else differs. Completed shots are handed to listeners the moment they complete, so a session store can
commit them before the video ends.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from posture_rules.pack import Profile, RulePack, load_pack, other_hand

from .body_stream import VIS_MIN, BodyStream
from .capture import Frame
from .engine import RuleEngine, setup_camera_roll
from .kinematics import Body, classify_view, leg_ratio, torso_ratio
from .landmarks import INDEX, SIDES
from .phases import (
    PHASE_MARKS,
    Heard,
    PhaseTracker,
    ShotPhases,
    first_seen_drawn,
    hear_lost,
    hear_unseen,
    phase_windows,
)
from .pose import PoseEstimator
from .pose_frame import PoseFrame, at_file_precision
from .results import CompletedShot, FrameResult, Series, SessionReport, ShotResult, key_frame_indices, uncertain_marks
from .session_notes import (
    ALONG_DEPTH_NOTE,
    ARROW_UNSEEN_NOTE,
    FIRST_SEEN_NOTE,
    HAND_MISREAD_NOTE,
    HEARD_LOST_NOTE,
    HEARD_NOTE,
    LET_DOWN_NOTES,
    MISREAD_NOTE,
    OTHER_HAND_NOTE,
    UNSEEN_NOTE,
    hidden_hand_note,
    other_hand_note,
    roll_note,
)
from .shot_series import shot_series
from .shot_view import ARROW_SQUARE_MIN, ShotView, arrow_squareness, shot_view

ShotListener = Callable[[CompletedShot], None]
# How far before the anchor the live view looks for the arms' own length (the raise and the draw).
LIVE_VIEW_LOOKBACK_S = 2.0
_WRISTS = (("left", INDEX["left_wrist"]), ("right", INDEX["right_wrist"]))
FrameListener = Callable[[FrameResult], None]
PoseListener = Callable[[PoseFrame], None]  # every frame's pose as it comes in (the kept track, coach/kept_track.py)
# (completed shot, frame index -> time in s) -> the shot with its release refined (coach/audio/). The sound's
# refiner (coach.audio.SoundTiming) can also hear a release the pose did not see: heard_release(from_s, to_s).
ReleaseRefiner = Callable[[ShotPhases, Mapping[int, float]], ShotPhases]


class Analyzer:
    def __init__(
        self,
        fps: float,
        width: int,
        height: int,
        *,
        pack: RulePack | None = None,
        profile: Profile | None = None,
        mode: str = "recorded",
        estimator: PoseEstimator | None = None,
        source: str = "",
        on_shot: Iterable[ShotListener] = (),
        on_frame: Iterable[FrameListener] = (),
        release_refiner: ReleaseRefiner | None = None,
        on_pose: Iterable[PoseListener] = (),
    ):
        self.fps, self.width, self.height = fps, width, height
        self.profile = profile or Profile()
        self.base_pack = pack or load_pack()
        self.pack = self.profile.apply(self.base_pack)
        self.mode = mode
        self.estimator = estimator
        self.source = source
        self.listeners = list(on_shot)
        # Every analysed frame, including those finish() flushes from the smoother (renderers, live views).
        self.frame_listeners = list(on_frame)
        self.release_refiner = release_refiner  # applied to each completed shot before it is judged
        self.pose_listeners = list(on_pose)
        handed = self.profile.handedness
        self.bodies = BodyStream(fps, width, height, mode, handed or "right")
        self.tracker = PhaseTracker(handedness=handed)
        self.engine = RuleEngine(self.pack, fps=fps)
        self.shots: list[ShotResult] = []
        self.frames_seen = 0
        self.frames_with_person = 0
        self._hand_hidden = {side: 0 for side, _ in _WRISTS}  # frames with the archer but not this hand
        self._ratios: deque[float] = deque(maxlen=int(fps * 120))
        self._shot_notes: list[str] = []  # ALONG_DEPTH_NOTE, FIRST_SEEN_NOTE of the shots they concern
        self._hands: list[str] = []  # each shot's draw hand, as the tracker read it
        self._rolls: list[float] = []  # each shot's camera roll (deg; NaN where no standing setup was seen)
        self._recent_ratios: deque[float] = deque(maxlen=int(fps * 3))
        self._legs: deque[float] = deque(maxlen=int(fps * 120))
        self._recent_legs: deque[float] = deque(maxlen=int(fps * 3))
        self._view = "face-on"
        self._handedness = handed
        self._handedness_source = "profile" if handed else "auto"
        self._time_of: dict[int, float] = {}
        self._heard_upto = (0, 0)  # the tracker's unseen draws and let-downs already listened to
        self._heard: dict[tuple[str, int], str] = {}  # the note of each ("unseen"/"lost", k) that became a shot

    # ---- input -----------------------------------------------------------------------------------------
    def push(self, frame: Frame) -> list[FrameResult]:
        """Run pose on one frame and analyse it; returns the frames whose analysis is now ready."""
        if self.estimator is None:
            raise RuntimeError("Analyzer.push(frame) needs an estimator; use push_pose for pose tracks")
        return self.push_pose(self.estimator.estimate(frame))

    def push_pose(self, pf: PoseFrame) -> list[FrameResult]:
        at_file_precision(pf)  # in place: what a saved or kept track gives back, so analysing it again is this analysis
        for listener in self.pose_listeners:
            listener(pf)
        self.frames_seen += 1
        if pf.landmarks is not None:
            self.frames_with_person += 1
            for side, i in _WRISTS:
                self._hand_hidden[side] += bool(pf.landmarks[i, 3] < VIS_MIN)
        return [self._analyse(b) for b in self.bodies.push(pf)]

    def finish(self) -> SessionReport:
        """Flush the smoother and the phase tracker, judge what is left and return the session report."""
        for b in self.bodies.flush():
            self._analyse(b)
        for sp in self.tracker.finish():
            self._complete(sp)
        self._listen()
        return self.report()

    # ---- per frame -------------------------------------------------------------------------------------
    @property
    def view(self) -> str:
        return self._view

    @property
    def handedness(self) -> str | None:
        return self._handedness

    @property
    def other_hand_only(self) -> str | None:
        """The hand the profile does not give, where every full draw seen was drawn with it
        (`PhaseTracker.other_hand_draws`), none with the profile's (no shot, no let-down): the picture is mirrored,
        or shows another archer. Else None. Analysed again with that hand, its full draws are shots or let-downs,
        so the profile's hand, which drew none, is never the other hand's in turn."""
        drew = self.shots or self.tracker.let_downs
        if drew or not self.tracker.other_hand_draws or self.profile.handedness is None:
            return None
        return other_hand(self.profile.handedness)

    def _analyse(self, body: Body) -> FrameResult:
        self._time_of[body.index] = body.t_s
        # Times are only looked up for frames still in the engine's buffer: keep memory flat in video length.
        self._time_of.pop(body.index - self.engine.buffer.maxlen, None)
        r = torso_ratio(body)
        if not math.isnan(r):
            self._ratios.append(r)
            self._recent_ratios.append(r)
            legs = leg_ratio(body)
            if not math.isnan(legs):
                self._legs.append(legs)
                self._recent_legs.append(legs)
            if body.index % 15 == 0:
                self._view = self._live_view(body.index)
        upd = self.tracker.push(body)
        if self.tracker.handedness not in (None, self._handedness):  # learned, or learned again (tracker.py)
            self._learn_handedness(self.tracker.handedness)
        vals, active = self.engine.push(body, upd.phase.value, self._view)
        for sp in upd.completed:
            self._complete(sp)
        heard_unseen, heard_lost = self._heard_upto
        if len(self.tracker.unseen_draws) != heard_unseen or len(self.tracker.let_downs) != heard_lost:
            self._listen()
        result = FrameResult(body.index, body.t_ms, body.xy, body.vis, upd.phase.value, upd.shot, active, vals)
        for listener in self.frame_listeners:
            listener(result)
        return result

    def _learn_handedness(self, handedness: str) -> None:
        """Each anchor tells which hand draws; re-label what is buffered of this shot so it is judged right (the
        shots before it were judged already, on their own hand)."""
        self._handedness = handedness
        self.bodies.set_handedness(handedness)
        sides = SIDES[handedness]
        after = max((s.end_frame for s in self.shots[-1:] if s.end_frame is not None), default=-1)
        for s in self.engine.buffer:
            if s.body.index > after and s.body.sides is not sides:
                s.body.sides = sides
                s.values = self.engine.measure(s.body)

    def _live_view(self, now: int) -> str:
        """The view the live faults are judged from: the recent shoulders, and at full draw the shot's own view,
        so a shot filmed along its arrow flags no face-on fault live that its verdict would not judge."""
        view = classify_view(self._recent_ratios, self._recent_legs).view
        anchor = self.tracker.full_draw_since
        if view != "face-on" or anchor is None:
            return view
        lo = max(anchor - int(LIVE_VIEW_LOOKBACK_S * self.fps), 0)
        bodies = [s.body for s in self.engine.samples_between(lo, now)]
        return "other" if arrow_squareness(bodies, anchor, now + 1) < ARROW_SQUARE_MIN else view

    # ---- per shot --------------------------------------------------------------------------------------
    def _shot_view(self, sp: ShotPhases) -> ShotView:
        lo = sp.raise_start_frame if sp.raise_start_frame is not None else sp.anchor_frame
        bodies = [s.body for s in self.engine.samples_between(lo, sp.end_frame)]
        return shot_view(bodies, sp, self._view)

    def _listen(self) -> None:
        """The holds the pose could not follow to a release, newly ended, are shots if the string was heard:
        a hold with no full draw seen (the draw hand hidden) as it ended, a full draw as the picture lost it."""
        hear = getattr(self.release_refiner, "heard_release", None)
        unseen, lost = self.tracker.unseen_draws, self.tracker.let_downs
        if hear is not None:
            for k in range(self._heard_upto[0], len(unseen)):
                u = unseen[k]
                heard = hear_unseen(u, hear, self._time_of, len(self.shots), self._handedness or "right")
                self._take_heard(heard, ("unseen", k), HEARD_NOTE, (u.first_frame, u.last_frame, u.first_s, u.last_s))
            for k in range(self._heard_upto[1], len(lost)):
                ld = lost[k]
                heard = hear_lost(ld, hear, self._time_of)
                self._take_heard(
                    heard, ("lost", k), HEARD_LOST_NOTE, (ld.anchor_frame, ld.end_frame, ld.anchor_s, ld.end_s)
                )
        self._heard_upto = (len(unseen), len(lost))

    def _take_heard(self, heard: Heard | None, key: tuple[str, int], note: str, span: tuple) -> None:
        if heard is None:
            return
        a, b, ta, tb = span
        self._heard[key] = note.format(a=a, b=b, ta=ta, tb=tb, t=heard.t_s, n=len(self.shots) + 1)
        # A release the pose saw is timed by the sound as any other; one it did not see was timed by it already.
        self._complete(heard.shot, refine=heard.shot.release_source == "pose")

    def _complete(self, sp: ShotPhases, refine: bool = True) -> ShotResult:
        if refine and self.release_refiner is not None and sp.release_frame is not None:
            sp = self.release_refiner(sp, self._time_of)
        view = self._shot_view(sp)
        self._hands.append(sp.handedness)
        sp.marks_confidence = view.marks_confidence(sp.marks_confidence)
        if first_seen_drawn(sp.marks_confidence):
            self._shot_notes.append(FIRST_SEEN_NOTE.format(n=len(self.shots) + 1, a=sp.anchor_frame))
        if sp.shoulders_misread:
            self._shot_notes.append(MISREAD_NOTE.format(n=len(self.shots) + 1))
        if sp.hand_misread:
            self._shot_notes.append(HAND_MISREAD_NOTE.format(n=len(self.shots) + 1))
        if view.along_depth:
            self._shot_notes.append(ALONG_DEPTH_NOTE.format(n=len(self.shots) + 1, pct=round(100 * view.arrow_square)))
        elif view.arrow_unseen:
            self._shot_notes.append(ARROW_UNSEEN_NOTE.format(n=len(self.shots) + 1))
        findings, measures = self.engine.judge_shot(sp, view.view, view.off_view)
        self._rolls.append(setup_camera_roll(self.engine.buffer, phase_windows(sp, self._time_of.get)))
        shot = ShotResult.from_phases(
            sp, findings, measures, index=len(self.shots), fps=self.fps, times_s=self._phase_times(sp)
        )
        self.shots.append(shot)
        if self.listeners:
            done = self._completed(shot)
            for listener in self.listeners:
                listener(done)
        return shot

    def _completed(self, shot: ShotResult) -> CompletedShot:
        """The shot with what its listeners keep of it, read from the engine's buffer while it still holds it."""
        key_frames = key_frame_indices(shot)
        landmarks: dict[int, np.ndarray] = {}
        if key_frames:
            want = set(key_frames.values())
            for s in self.engine.samples_between(min(want), max(want)):
                if s.body.index in want:
                    xy = np.asarray(s.body.xy, dtype=np.float32)
                    landmarks[s.body.index] = np.column_stack([xy, np.asarray(s.body.vis, np.float32)])
        return CompletedShot(
            shot, self.fps, self.width, self.height, self._shot_series(shot), key_frames, landmarks, self.handedness
        )

    def _shot_series(self, shot: ShotResult) -> Series | None:
        """The frame metrics of the shot's rules over the shot (raise start → end)."""
        lo = next(
            (f for f in (shot.raise_start_frame, shot.draw_start_frame, shot.anchor_frame) if f is not None), None
        )
        hi = shot.end_frame if shot.end_frame is not None else shot.release_frame
        if lo is None or hi is None:
            return None
        return shot_series(self.engine, lo, hi, phase_windows(shot, self._time_of.get))

    def _phase_times(self, sp: ShotPhases) -> dict[str, float | None]:
        return phase_times(sp, self._time_of.get)

    # ---- report ----------------------------------------------------------------------------------------
    def forget_shots(self) -> None:
        """Drop the shots judged so far, and the hands they were drawn with (a benchmark judging given phases on
        the same frames instead: benchmarks/rule_accuracy.py --truth-phases)."""
        self.shots.clear()
        self._hands.clear()
        self._rolls.clear()

    def _session_hand(self) -> str | None:
        """The hand most shots were drawn with (the latest learned on a tie); the profile's where it gives one."""
        if not self._hands:
            return self._handedness
        return max(("right", "left"), key=lambda h: (self._hands.count(h), h == self._handedness))

    def report(self, complete: bool = True) -> SessionReport:
        view = classify_view(self._ratios, self._legs)
        consistency, measures = self.engine.judge_session(self.shots, view.view)
        notes = []
        if self.frames_with_person == 0:
            notes.append("no person found in the video")
        elif not self.shots:
            notes.append("no shots found")
            notes += hidden_hand_note(self._hand_hidden, self.frames_with_person)
            if self.other_hand_only is not None:
                first = self.tracker.other_hand_draws[0]
                notes.append(other_hand_note(self.profile.handedness, first.frame, first.t))
        for k, ld in enumerate(self.tracker.let_downs):
            let_down = LET_DOWN_NOTES[ld.reason].format(a=ld.anchor_frame, b=ld.end_frame, ta=ld.anchor_s, tb=ld.end_s)
            notes.append(self._heard.get(("lost", k)) or let_down)
        notes += self._shot_notes + roll_note(self._rolls)
        hand = self._session_hand()
        notes += [OTHER_HAND_NOTE.format(n=k + 1, side=h) for k, h in enumerate(self._hands) if h != hand]
        for k, u in enumerate(self.tracker.unseen_draws):
            unseen = dict(a=u.first_frame, b=u.last_frame, ta=u.first_s, tb=u.last_s, dur=u.duration_s)
            notes.append(self._heard.get(("unseen", k)) or UNSEEN_NOTE.format(**unseen))
        return SessionReport(
            source=self.source,
            fps=self.fps,
            frame_count=self.frames_seen,
            width=self.width,
            height=self.height,
            handedness=hand or "unknown",
            handedness_source=self._handedness_source if self._handedness else "unknown",
            view=view.view,
            view_confidence=view.confidence,
            rule_pack={"id": self.pack.id, "version": self.pack.version, "path": self.pack.path},
            profile=self.profile.to_json(),
            shots=list(self.shots),
            consistency=consistency,
            consistency_measures=measures,
            frames_with_person=self.frames_with_person,
            notes=notes,
            complete=complete,
        )


def phase_times(sp, t) -> dict[str, float | None]:
    """A shot's phase durations (raise_s, draw_s, …) and mark times (raise_start_at, …) in s, for `times_s`:
    `sp` anything with the marks of a ShotPhases, `t` a frame's time in s (None where unknown)."""
    w = phase_windows(sp, t)
    # A phase between marks that are all uncertain has no duration to tell (as the engine's frame rules).
    unsure = set(uncertain_marks(getattr(sp, "marks_confidence", None), getattr(sp, "release_confidence", None)))
    out: dict[str, float | None] = {}
    for name in ("raise", "draw", "full_draw", "hold", "follow_through"):
        a, b = w.get(name, (None, None))
        if a is None or b <= a or set(PHASE_MARKS[name]) <= unsure:  # not reached, empty or unknown
            out[f"{name}_s"] = None
            continue
        ta, tb = t(a), t(b)
        if name == "follow_through" and a is not None:
            tb = t(b - 1)
        out[f"{name}_s"] = tb - ta if ta is not None and tb is not None else None
    for key, frame in (
        ("raise_start_at", sp.raise_start_frame),
        ("draw_start_at", sp.draw_start_frame),
        ("anchor_at", sp.anchor_frame),
        ("release_at", sp.release_frame),
        ("end_at", sp.end_frame),
    ):
        out[key] = t(frame) if frame is not None else None
    return out
