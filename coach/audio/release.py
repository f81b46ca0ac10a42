"""The pose release refined by the string's crack, inside the window the pose allows; flight time from the impact."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..phases import ShotPhases
from ..phases.heard import ONSET_SLACK_S  # an onset this close before a frame's timestamp belongs to it
from .decoding import AudioInfo, Envelope, decode_envelope
from .onsets import BASE_S, Onset, detect_onsets

SOUND_EVIDENCE_WEIGHT = 0.8  # how much a string crack in the pose's window adds to the release confidence
# --- release refinement ----------------------------------------------------------------------------------
WINDOW_S = 0.25  # sound may move the pose release by at most this much (but see pick_unseen_release)
PRIOR_S = 0.2  # how far the pose release typically is from the true one (Gaussian prior on the onset)
UNSEEN_AFTER_ANCHOR_S = 0.3  # a release the pose did not see is looked for from this long after the anchor
EARLIER_SHARE = 0.35  # an earlier onset at least this share of the best score wins (the later one: impact)
IMPACT_MIN_S, IMPACT_MAX_S = 0.2, 2.0  # the arrow is heard hitting this long after the release
IMPACT_RISE_MIN = 0.8  # ... as a sharp onset at least 8 dB above the level before it
# Phone video often carries its sound late or early against the picture (real06: 2.5 frames late). The offset is
# learnt from the session's own shots whose release the pose saw clearly (the hand seen jumping, confidence at
# least OFFSET_LEARN_CONF), once OFFSET_MIN_SHOTS of them agree within OFFSET_AGREE_S, and is taken off every
# onset after that; with fewer, or shots that disagree, no offset is assumed rather than a wrong one.
OFFSET_LEARN_CONF = 0.8
OFFSET_MIN_SHOTS = 2
OFFSET_AGREE_S = 0.05
OFFSET_MAX_S = 0.2
# The pose's release frame is only known to a frame either way, and the crack lies anywhere inside its frame: an
# offset under this many frames cannot be told from the pose's own error (clean_rh_3shots: 1.4 frames from pose
# releases a frame early on two shots, with the sound exact), so none is assumed.
OFFSET_MIN_FRAMES = 2.0


# ---- fusion with the pose -------------------------------------------------------------------------------
FrameTimes = Mapping[int, float] | Callable[[int], float | None]


def _time_fn(frame_times: FrameTimes | None, fps: float) -> Callable[[int], float | None]:
    if frame_times is None:
        return lambda i: i / fps
    if callable(frame_times):
        return frame_times
    return lambda i: frame_times.get(i, i / fps)


def pick_release(onsets: Sequence[Onset], t_pose: float, window_s: float = WINDOW_S) -> Onset | None:
    """The onset in [t_pose ± window_s] that best fits a release: sharp, strong and near the pose release;
    an earlier one of comparable score wins over a later one (the later one is the arrow hitting)."""
    cands = [o for o in onsets if abs(o.t_s - t_pose) <= window_s and o.sharp]
    if not cands:
        return None

    def score(o: Onset) -> float:
        return o.rise * math.exp(-0.5 * ((o.t_s - t_pose) / PRIOR_S) ** 2)

    best = max(cands, key=score)
    # A louder onset that could be this one's impact (heard >= IMPACT_MIN_S later) does not outrank it.
    earlier = [o for o in cands if best.t_s - o.t_s >= IMPACT_MIN_S and score(o) >= EARLIER_SHARE * score(best)]
    return min(earlier, key=lambda o: o.t_s) if earlier else best


def pick_impact(onsets: Sequence[Onset], release: Onset) -> Onset | None:
    """The arrow hitting: the strongest sharp onset 0.2-2 s after the release, clear of the background."""
    cands = [
        o
        for o in onsets
        if IMPACT_MIN_S <= o.t_s - release.t_s <= IMPACT_MAX_S and o.thud and o.rise >= IMPACT_RISE_MIN
    ]
    return max(cands, key=lambda o: o.rise) if cands else None


def pick_unseen_release(onsets: Sequence[Onset], heard: Onset, t_from: float, t_before: float) -> Onset | None:
    """The release `heard` may be the arrow hitting after a release the pose did not see: after a dead
    release (後手小) the hand stays at the face and the pose's "release" is the arms coming down, 0.5-1 s
    later, when the impact is heard. That is so when a crack at least EARLIER_SHARE as strong was heard
    earlier in the hold (after t_from, before t_before), IMPACT_MIN_S..IMPACT_MAX_S before `heard`: the
    strongest such crack, or None."""
    cands = [
        o
        for o in onsets
        if o.sharp
        and t_from <= o.t_s < t_before
        and IMPACT_MIN_S <= heard.t_s - o.t_s <= IMPACT_MAX_S
        and o.rise >= EARLIER_SHARE * heard.rise
    ]
    return max(cands, key=lambda o: o.rise) if cands else None


def refine_release(
    sp: ShotPhases,
    onsets: Sequence[Onset],
    fps: float,
    window_s: float = WINDOW_S,
    frame_times: FrameTimes | None = None,
    offset_s: float = 0.0,
) -> ShotPhases:
    """`sp` with its release moved to the frame during which the string was heard (`release_source` "sound+pose")
    and `flight_time_s` set where the impact was heard; `sp` itself when no onset fits. The new release
    frame's time lies within `window_s` of the pose release, after the anchor and before the end; only for a
    shot whose hand the pose saw stay at the face (`hand_stayed`) may it go back as far as the anchor.
    `offset_s`: how late the sound runs against the picture (`AvOffset`); onsets are moved back by it."""
    if sp.release_frame is None or not onsets:
        return sp
    if offset_s:
        onsets = [replace(o, t_s=o.t_s - offset_s) for o in onsets]
    t_of = _time_fn(frame_times, fps)
    t_pose = t_of(sp.release_frame)
    if t_pose is None:
        t_pose = (sp.release_ms or 0.0) / 1000.0
    rel = pick_release(onsets, t_pose, window_s)
    if rel is None:
        return sp
    t_lo = t_pose - window_s
    t_anchor = t_of(sp.anchor_frame)
    # Only where the pose saw the hand stay at the face: at a busy shooting line a neighbour's crack in the
    # hold must not take the place of a release the pose did see.
    if t_anchor is not None and sp.hand_stayed:
        unseen = pick_unseen_release(onsets, rel, t_anchor + UNSEEN_AFTER_ANCHOR_S, t_lo)
        if unseen is not None:
            rel, t_lo = unseen, t_anchor
    # Frames allowed: time within the window (or, for a release the pose did not see, back to the anchor),
    # strictly after the anchor, not past the end. The release frame is the one whose interval [t_i, t_i+1)
    # holds the onset: a frame stands for its exposure, and on real footage the crack is heard ~0.5 frame
    # after the timestamp of the frame labelled as release.
    span = int(math.ceil((t_pose - t_lo) * fps)) + 2
    allowed = []
    for i in range(max(sp.anchor_frame + 1, sp.release_frame - span), min(sp.end_frame, sp.release_frame + span) + 1):
        t = t_of(i)
        if t is not None and t_lo - 1e-9 <= t <= t_pose + window_s + 1e-9:
            allowed.append((i, t))
    if not allowed:
        return sp
    at_or_before = [i for i, t in allowed if t <= rel.t_s + ONSET_SLACK_S]
    best_i = at_or_before[-1] if at_or_before else allowed[0][0]
    t_rel = t_of(best_i)
    moved = replace(sp, release_frame=best_i)
    follow = moved.windows(t_of)["follow_through"][0]  # the one definition of the phase windows
    imp = pick_impact(onsets, rel)
    return replace(
        moved,
        release_ms=t_rel * 1000.0,
        follow_start_frame=min(follow, sp.end_frame),
        release_source="sound+pose",
        flight_time_s=None if imp is None else round(imp.t_s - rel.t_s, 3),
        # The string's crack inside the window the pose allows is evidence of its own.
        release_confidence=round(1.0 - (1.0 - sp.release_confidence) * (1.0 - SOUND_EVIDENCE_WEIGHT), 3),
        release_evidence=(*sp.release_evidence, "sound"),
    )


@dataclass(slots=True)
class AudioCues:
    """A recording's sound, decoded once before the pose runs: its envelopes and onsets, not its samples."""

    envelope: Envelope
    onsets: list[Onset]
    info: AudioInfo | None = None
    offset: AvOffset = field(default_factory=lambda: AvOffset())

    def refiner(self, fps: float, window_s: float = WINDOW_S) -> SoundTiming:
        """The Analyzer's `release_refiner`: (ShotPhases, frame times) -> ShotPhases, which can also hear a
        release the pose did not see (`SoundTiming.heard_release`)."""
        return SoundTiming(self, fps, window_s)

    def summary(self) -> dict:
        t = self.info
        return {
            "onsets": len(self.onsets),
            "sharp_onsets": sum(o.sharp for o in self.onsets),
            "av_offset_s": round(self.offset.seconds, 4),
            **({"sample_rate": t.rate, "start_offset_s": round(t.start_s, 4)} if t else {}),
        }


@dataclass(slots=True)
class SoundTiming:
    """A recording's sound as the Analyzer uses it: it refines each shot's release (`__call__`), learning the
    sound's lag against the picture from the shots the pose saw clearly, and hears releases the pose did
    not see (`heard_release`)."""

    cues: AudioCues
    fps: float
    window_s: float = WINDOW_S

    def __call__(self, sp: ShotPhases, frame_times: FrameTimes) -> ShotPhases:
        self.cues.offset.learn(sp, self.cues.onsets, _time_fn(frame_times, self.fps), self.window_s)
        return refine_release(sp, self.cues.onsets, self.fps, self.window_s, frame_times, self.cues.offset.seconds)

    def heard_release(self, from_s: float, to_s: float) -> float | None:
        """When the string's crack was heard in [from_s, to_s] (picture clock, the sound's learnt lag taken
        off): the strongest sharp onset there, or an earlier one of comparable strength heard at least
        IMPACT_MIN_S before it (the later one is then the arrow hitting). None if nothing sharp was heard."""
        lag = self.cues.offset.seconds
        cands = [o for o in self.cues.onsets if o.sharp and from_s <= o.t_s - lag <= to_s]
        if not cands:
            return None
        best = max(cands, key=lambda o: o.rise)
        earlier = [o for o in cands if best.t_s - o.t_s >= IMPACT_MIN_S and o.rise >= EARLIER_SHARE * best.rise]
        crack = min(earlier, key=lambda o: o.t_s) if earlier else best
        return crack.t_s - lag


@dataclass(slots=True)
class AvOffset:
    """How late the sound runs against the picture (s; negative: early), learnt from the session's shots."""

    seen: list[float] = field(default_factory=list)  # onset - pose release of each clearly seen release
    frame_s: float = 0.0  # the picture's frame period, from the shots learnt from

    def learn(self, sp: ShotPhases, onsets: Sequence[Onset], t_of: Callable[[int], float | None], window_s: float):
        clear = sp.release_confidence >= OFFSET_LEARN_CONF and "draw_hand" in sp.release_evidence
        if sp.release_frame is None or sp.hand_stayed or not clear:
            return
        t_pose = t_of(sp.release_frame)
        rel = None if t_pose is None else pick_release(onsets, t_pose + self.seconds, window_s)
        if rel is not None:
            self.seen.append(rel.t_s - t_pose)
            t_next = t_of(sp.release_frame + 1)
            if t_next is not None and t_next > t_pose:
                self.frame_s = t_next - t_pose

    @property
    def seconds(self) -> float:
        if len(self.seen) < OFFSET_MIN_SHOTS:
            return 0.0
        mid = float(np.median(self.seen))
        agree = [d for d in self.seen if abs(d - mid) <= OFFSET_AGREE_S]
        if len(agree) < OFFSET_MIN_SHOTS or 2 * len(agree) <= len(self.seen):
            return 0.0
        offset = float(np.median(agree))
        if abs(offset) < OFFSET_MIN_FRAMES * self.frame_s:
            return 0.0
        return float(np.clip(offset, -OFFSET_MAX_S, OFFSET_MAX_S))


def audio_cues(path: str | os.PathLike) -> AudioCues | None:
    """Decode a video's sound and find its onsets; None if it has no (decodable) audio. The samples are
    reduced to envelopes while decoding (`decode_envelope`): memory does not grow with the track's length."""
    try:
        decoded = decode_envelope(path)
    except (ValueError, RuntimeError, MemoryError):  # an odd or broken audio stream: the pose alone times it
        return None
    if decoded is None:
        return None
    env, info = decoded
    if info.n_samples < info.rate * BASE_S * 4:
        return None
    return AudioCues(env, detect_onsets(env), info)


def cues_from_envelope(env: Envelope) -> AudioCues:
    return AudioCues(env, detect_onsets(env))
