"""The phase tracker's parameters, in one place: every length in body units U (shoulder widths, see
`frames._unit`), every time in seconds. Each says where its value comes from: the rules brief, the synthetic
archer, or the real archers of ../shared/realpose ("real05": a hand-labelled real track)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TrackerParams:
    # --- body unit
    # Body.sw (a running percentile of the projected shoulder width) collapses in oblique views, where the far
    # shoulder hides behind the near one for seconds at a time. The torso length does not shrink when the
    # archer turns about the vertical, and a face-on shoulder width is at least this share of it, so it bounds
    # the unit from below.
    torso_to_sw_min: float = 0.45

    # --- anchor (full draw)
    # Draw wrist to the nearest face point: 0.4-0.8 in real and synthetic anchors; MediaPipe puts it ~1.0 from a
    # high camera (stance_high). The "ahead" test below keeps the set out.
    anchor_face_max_sw: float = 1.15
    # The draw hand has come back to the face: its offset from the nose along the nose-to-bow-hand direction.
    # At the set (end of the raise) the hand is in front of the face, +0.3..+1.4 U towards the bow; at the
    # anchor -0.2..-0.7 face-on (real and synthetic archers), -0.03..+0.07 down-line; a set right at the chin
    # reaches +0.12.
    anchor_ahead_max_sw: float = 0.1
    anchor_span_min_sw: float = 1.4  # wrist-to-wrist at full draw: an extended bow arm plus a hand at the face
    arm_out_min_sw: float = 1.2  # the bow wrist is this far from the nose when the arm is extended
    # How far below the shoulder line the bow wrist may be at full draw (a bow arm held 30 deg low, ti_shou,
    # puts it ~1.15 below).
    bow_below_shoulder_max_sw: float = 1.5
    # "The span stops growing" (noisy 2D points never reach the brief's 0.05 U/s) and the draw hand has stopped.
    anchor_span_speed_sw_s: float = 0.8
    anchor_hand_speed_sw_s: float = 0.8
    anchor_confirm_s: float = 0.2  # the anchor condition must hold this long: a hand passing the face is not one
    deriv_half_s: float = 0.07  # half-window of the centred differences (±2 frames at 30 fps)
    # ... for "stopped at the anchor": wider, so MediaPipe's hold jitter averages out.
    anchor_deriv_half_s: float = 0.1
    deriv_max_gap_s: float = 0.25  # live: widen to the nearest frame up to this far when frames were dropped

    # --- look-back for the raise and the draw start
    lookback_s: float = 6.0  # the longest raise + draw looked back over from the anchor
    set_bow_drop_sw: float = 0.5  # the set is searched back to where the bow wrist was this far below mid-draw
    new_draw_min_sw: float = 0.6  # the draw hand came to an anchor from at least this far (since the last shot)
    # A draw widens the span more than this after the raise face-on (down-line it barely does).
    draw_span_growth_min_sw: float = 0.5
    # The draw starts where the arms stop being this close to the slowest arm motion at the set (the pause's end),
    # or this share of the draw's (90th percentile) arm speed if less (a slow draw), but no closer than the minimum.
    set_motion_tol_sw_s: float = 0.1
    set_motion_tol_frac: float = 0.1
    set_motion_tol_min_sw_s: float = 0.03
    raise_onset_speed_sw_s: float = 0.4  # the bow wrist moves faster than this during the raise
    raise_level_below_sw: float = 0.35  # "the bow wrist reaches shoulder height", with room for a low bow hand
    raise_rest_s: float = 0.2  # the bow arm rested this long before the raise
    raise_min_rise_sw: float = 0.5  # a raise brings the bow wrist up by at least this (from the side: 1-2 U)
    set_pause_max_s: float = 0.5  # the pause at the set, with the bow arm up, is walked back over up to this long
    # The bow arm up this long with no anchor found: a full draw the pose did not show; counting frames where it
    # was lost or dipped for no longer than raised_gap_s.
    unseen_draw_min_s: float = 1.5
    raised_gap_s: float = 0.3
    # The picture lost the archer: its last frames, over up to lost_width_ref_s, that read the shoulders narrower
    # and narrower, by this share in all, are the pose failing (anchor.lost_at_anchor), not where the archer was.
    lost_narrowing_frac: float = 0.15
    lost_width_ref_s: float = 0.3
    # An anchor held from within came_into_view_s of the archer coming into view (the clip's first frame with
    # them, or the first after nobody was in the picture for longer than raised_gap_s) was reached before: the
    # clip starts at full draw, or the camera found the archer drawn. Its raise and draw were not seen (what
    # MediaPipe's first frames show is its own settling from where it first placed the arms: no draw to time).
    # The anchor needs anchor_deriv_half_s of frames each side to be judged still: well inside this.
    came_into_view_s: float = 0.5
    # Such a hold is a shot when the string is heard (heard.py): no sooner than heard_min_up_s after the bow arm
    # came up (the fastest real draws take 0.7 s), from follow_max_s before it came down, to heard_after_last_s
    # after it was last seen up (a camera swung away at the release, real06; the sound up to 0.2 s late).
    heard_min_up_s: float = 1.0
    heard_after_last_s: float = 0.3
    # A heard release stays uncertain: phone sound can run 0.2 s (6 frames) late against the picture (real06:
    # 2.5 frames), and the rules of the release need the draw hand, which was not seen.
    heard_conf: float = 0.4
    # A full draw the picture lost (LetDown "view_lost") is a shot when the crack is heard within this of the
    # release the pose saw (as far as coach/audio lets sound move a release), or of the last frame it was seen.
    heard_release_move_s: float = 0.25

    # --- where full draw was reached (anchor.py)
    # Full draw: the span within this share of the draw's extent of the hold's, or this many times the hold's
    # interquartile span range if more, and the arms as still as in the hold's quieter half for anchor_still_s,
    # starting within anchor_settle_max_s of the span reaching the hold's (else the span alone tells), or this
    # share of the draw so far if longer: a slow draw settles slowly, a handheld phone's jittery hold never
    # looks still.
    anchor_span_tol_frac: float = 0.05
    anchor_span_wander_factor: float = 2.0
    anchor_still_s: float = 0.2
    anchor_settle_max_s: float = 1.2
    anchor_settle_draw_frac: float = 0.7
    # Where the arms never looked as still as the hold (the span alone places the anchor), the span reaches the
    # hold's while the draw hand still brakes into the anchor: while its speed keeps falling by this ratio a frame,
    # the draw has not ended. [O] real05 (handheld, hold shaken): 6 frames early at the span, 2 where it stopped
    # braking; any ratio from 0.7 to 0.9 gives the same anchors on every real track.
    anchor_braking_ratio: float = 0.8
    # A long hold: the anchor is placed once this much of it is seen, while the draw is still in the buffer
    # (buffer_s; real07 holds 7 s).
    anchor_refine_after_s: float = 3.0
    # In the hold, the span growing faster than anchor_span_speed_sw_s for redraw_s by more than
    # redraw_growth_sw: the draw was still going on, the anchor came too early.
    redraw_s: float = 0.3
    redraw_growth_sw: float = 0.5
    # A draw moves the hand no faster than this frame to frame (every draw going on in the real, golden and
    # transformed tracks: 2.3-5.3 U/s; the string leaving flies it at 10-30). A growth with a faster step is the
    # pose snapping back from a folded hold as the arrow leaves (bystander cropped: 32): the shot goes on from
    # there as from a draw, its release uncertain (`anchor.draw_leapt`).
    redraw_max_step_sw_s: float = 10.0

    # --- how sure each mark is (ShotPhases.marks_confidence; a rule resting on a mark under
    # results.MIN_MARK_CONFIDENCE is "not assessable: phase uncertain", coach/engine.py)
    anchor_still_conf: float = 0.9  # the arms settled as still as in the hold where the span reached the hold's
    # After a release, the draw hand still within this of where it left (and the bow arm up) is at full draw too.
    rest_near_left_sw: float = 0.7
    held_anchor_conf: float = 0.4  # full draw found again after a 'release' (anchor.back_at_full_draw): which anchor?
    lost_anchor_conf: float = 0.3  # the hand at the face as the picture lost the archer: full draw by then, or soon
    anchor_span_conf: float = 0.6  # only the span tells (a jittery hold never looks still): close, not exact
    unrefined_conf: float = 0.3  # the anchor could not be placed against its hold (too short, out of the buffer)
    # The draw start is the set, the pause between raise and draw. It is a guess when there was no pause: the
    # arms never slowed below set_pause_max_sw_s (a hand at 1 U/s, ~40 cm/s, is moving; real03, real05, real08
    # never went under 2.4 U/s, the synthetic archer's sets 0.07-0.8), or the bow arm still rose by more than
    # draw_overlap_rise_sw between the draw start and the anchor, so raise and draw overlapped (real02, real05,
    # real07: 0.34-1.37 U; the synthetic archer's sets 0.00-0.13 U).
    set_pause_max_sw_s: float = 1.0
    draw_overlap_rise_sw: float = 0.3
    draw_set_conf: float = 0.9
    draw_guess_conf: float = 0.3
    # Where no pause was found up to the middle of the draw (it was the raise's end: the synthetic archer's set
    # span is 60 % of its hold's, so the halfway span from the nock is passed as the bow arm comes up), the set
    # is looked for in this share of what is left of the draw. Further on, the hesitations of a slow draw look
    # like a pause (fault_tempo's 5.8 s draw, read live: at half of it the draw start fell 32 frames late).
    late_set_share: float = 0.15

    # --- release (release.py)
    release_speed_sw_s: float = 1.5  # rules brief: the draw wrist's speed jumps above this at the release
    # A release leaves from the face: the hand held no further than this in front of the nose, towards the bow
    # (at the anchor it is 0.2-0.7 behind face-on, level down-line; the set is 0.3-1.4 in front). A hand that
    # has come forward off the face (the string let forward in a let-down) has nothing left to release.
    release_from_ahead_max_sw: float = 0.3
    release_start_sw: float = 0.15  # ... and it has started to leave the anchor position
    release_confirm_s: float = 0.3  # a hold twitch comes back to the face within this time; a release does not
    # ... unless no frame of its later half shows a wrist: then wait for one, up to this long (fault_hold at 15 fps:
    # the archer blanked for 0.5 s after the spring-back, the hand then far back).
    release_confirm_max_s: float = 1.0
    # Late in that window the hand is at least this far from the anchor (or lost), and farther than
    # release_jitter_factor times the hold's own 90th-percentile stray, and its way from the anchor is within
    # 120 deg of straight back from the bow.
    release_confirm_sw: float = 0.35
    release_jitter_factor: float = 1.5
    release_back_min_cos: float = -0.5
    # ... or within 60 deg of straight back when only the bow arm opened the window (its hand did not jump):
    # a thumb release springs back along the arrow; an archer settling into aim lowers both arms together
    # (real05: the hand 0.14 U down with the bow arm, 0.02 U back).
    release_back_by_bow_min_cos: float = 0.5
    # The bow arm falling opens a window only once the archer has been at full draw this long: in the first
    # second the arms settle into aim, the bow arm lowering onto the target (real05, 0.5 U in 0.3 s).
    bow_fall_after_s: float = 1.0
    release_end_glitch_frames: int = 2  # near frames at the very end of the window ignored as glitches
    # ... inside it, near frames (under half the confirmation distance) lasting this long: the hand was back at
    # the anchor, and the release is after them. A hand lingering by the chin for a frame or two after the string
    # left (real07) is not; a hold twitch that came back and held is (two frames were enough to say so before: no
    # release, real or synthetic, at any rate tested, moved when it became 0.1 s).
    release_near_run_s: float = 0.1
    release_end_min_sw: float = 0.2  # a release cut off by the end of the video has left the anchor by this much
    release_at_end_conf: float = 0.6  # ... likely a release (real02: 4 frames before the end), follow-through unseen
    # More than this many frames between the last one showing the draw hand at the anchor and the release found
    # (the hand hidden: someone walked in front, MediaPipe lost the archer; or seen only once already gone): the
    # release lies somewhere in them, so its frame is uncertain and the rules timed from it are not judged.
    release_unseen_max_frames: int = 2
    release_unseen_conf: float = 0.4
    # ... and frames whose span between the wrists closed by this much from the hold's count as not showing the
    # hand: a release never closes the span, so the pose misread the arms there (degraded video folds them as the
    # string leaves: fault_bow_arm in MPEG-4, fault_hold darker). Twice P.release_start_sw: a hold's span strays
    # well under that.
    release_misread_close_sw: float = 0.3
    # ... with the bow wrist coming in by at least this share of the closing: the pose read both hands moving
    # together, which is a misread (a creep or a let-down moves the draw hand alone; [O] 0.38-0.56 on clean shots
    # re-encoded, 0.15 at most on a true creep). pre_release_creep (coach/metrics/shot.py) uses the same share.
    misread_bow_share: float = 1 / 3
    # Raw frame-to-frame speed above which the hand is moving, or above release_onset_jitter_factor times the
    # hold's median raw speed (measured over hold_jitter_s before the jump).
    release_onset_speed_sw_s: float = 0.45
    release_onset_jitter_factor: float = 2.0
    hold_jitter_s: float = 1.0
    release_onset_back_s: float = 0.2  # the onset lies at most this far before the detected jump
    # The string leaving is a jump: the release's first step is at least this share of its fastest one within
    # release_onset_back_s after the jump. A hand drifting back under expansion before it (real07, real08:
    # 0.5 U/s against 8-10 U/s in the jump) is the hold, not the release.
    onset_peak_share: float = 0.1
    # The anchor position is the median of the draw wrist over hold_ref_s of the hold, ending hold_ref_gap_s
    # before the jump, so the jump itself is not in it.
    hold_ref_s: float = 0.5
    hold_ref_gap_s: float = 0.1
    hold_ref_min_frames: int = 5  # ... and at least this many frames with the hand seen (after a gap: before it)
    # Release evidence (`ReleaseWatch._release_evidence`): a hand that left the anchor by half the confirmation
    # distance is a release when the bow arm dropped with it (the bow hand falls as the string leaves: real07
    # 0.22 U, real08 0.4 U), which a hold twitch or an aiming correction does not do (bow wrist still to
    # ~0.05 U), nor a draw after an early anchor (the bow arm rises or extends then; it moves outwards at a
    # release too, so only the drop counts). The drop must also be release_bow_jitter_factor times the bow
    # wrist's own vertical stray in the hold.
    release_hand_part: float = 0.5
    release_bow_drop_sw: float = 0.15
    release_bow_jitter_factor: float = 3.0
    # The bow arm's drop is read on its second-deepest frame, so that one misread frame does not count; where the
    # frames lie further apart than this, on its deepest: the arm falls and is held up again within ~0.1 s (real07:
    # 3 frames at 25 fps), which at 12-15 fps (a GIF, a cheap camera) is one frame (real07 at 12.5 fps: 0.18 U,
    # then back).
    bow_glitch_frame_max_s: float = 0.05
    hand_stayed_sw: float = 0.2  # a span that grew less than this through the release window: the hand stayed
    # After a release the archer is still there, the same size in the picture: from view_check_after_s after it
    # to the end of the follow-through, two frames in a row show shoulders (or else the torso) within
    # view_same_scale of the hold's (MediaPipe's folds are dropped upstream, the body then comes back as it was;
    # frames.view_after). Where none do, the picture changed (an edit's dissolve or cut, real10: the archer
    # fades for a frame, then the body is lost) and whether an arrow left cannot be told: not a shot. A video
    # that ends first is not a changed picture.
    view_check_after_s: float = 0.2
    view_same_scale: float = 0.25
    # The same archer by the torso, but with shoulders never of the hold's width after it: the pose misread the
    # hold (ViewAfter.MISREAD), whose anchor and release are then uncertain (under results.MIN_MARK_CONFIDENCE).
    misread_hold_conf: float = 0.4

    # --- let-down and follow-through
    # The bow wrist this far below the shoulders during the hold, and let_down_drop_sw below where it was at the
    # anchor (a low bow arm is not a let-down): the archer came down without shooting.
    let_down_below_sw: float = 0.9
    let_down_drop_sw: float = 0.6
    # ... or the string was let forward: the span closed by this much from the anchor's for this long. A
    # release never closes the span (the hand flies back, the bow arm drops or rolls forward); MediaPipe
    # misplacing a wrist closes it for up to 0.7 s (clean_rh_3shots, just before shot 3's release).
    let_down_span_close_sw: float = 0.6
    let_down_confirm_s: float = 1.0
    lowered_drop_sw: float = 0.5  # follow-through: the bow arm is down when this far below its anchor height
    follow_min_s: float = 0.5  # rules brief: the follow-through lasts 0.5-1.5 s
    follow_max_s: float = 1.5

    buffer_max_frames: int = 1024  # cap for absurd frame rates; 8 s at 120 fps

    # --- the draw elbow standing in for a hidden draw hand (elbow.py): seen from behind, the draw hand is behind
    # the head for the whole shot (real06: wrist visibility 0.06-0.25) while the draw elbow shows (0.5-0.66).
    # At full draw the elbow is drawn back level with the arrow: no further in front of the draw shoulder, towards
    # the bow hand, than this (real06 0.2-0.5 U behind it; face-on archers 0.3-1 U behind), and no lower below
    # it than this (an arm hanging at rest puts it ~1 U below, a full draw about level: real06 0.1 U above).
    elbow_ahead_max_sw: float = 0.3
    elbow_below_max_sw: float = 0.5
    # The release: the elbow's sudden move forward (towards the bow hand) or down, relative to the draw shoulder.
    # The hand leaves at 8-10 U/s; the elbow, nearer the shoulder it turns about, at about half that (real06:
    # 8.7 U/s, 0.29 U in one frame). Aiming, a sagging arm and a let-down move it under 1 U/s; expansion through
    # the clicker moves it back (away from the bow), which never counts. Also this many times the hold's own
    # raw frame-to-frame jitter.
    elbow_release_speed_sw_s: float = 3.0
    elbow_jitter_factor: float = 4.0
    # ... and it does not come back: later in P.release_confirm_s it is still this far from where it left, or the
    # picture lost the archer (a phone swung away to follow the arrow, real06), or the elbow hid behind the body.
    elbow_confirm_sw: float = 0.1
    # How sure marks found from the elbow alone are: never sure (results.MIN_MARK_CONFIDENCE), the hand unseen.
    elbow_anchor_conf: float = 0.3  # the elbow seen arriving at full draw (else 0: only "at full draw by then")
    elbow_release_conf: float = 0.45  # the elbow stayed away after its jump
    elbow_release_lost_conf: float = 0.35  # the picture lost the archer right after the jump
    # The hand hidden at full draw and seen again flown back past the face (`elbow._hand_seen_back`): the string
    # left while it was hidden, some frames before (the hand is seen mid-flight or at its end).
    hand_back_release_conf: float = 0.4
    elbow_raise_conf: float = 0.3  # the raise: where the bow arm was first seen up (its start was before)

    @property
    def buffer_s(self) -> float:
        """How much of the past the tracker keeps: the look-back plus room for the hold's statistics."""
        return self.lookback_s + 2.0


P = TrackerParams()
