"""The release by ear: a video's sound track, its onsets, and the pose release refined by the string's crack.

    video file ─► load_audio (PyAV, mono float, on the video clock) ─► envelope (5 ms log energy)
               ─► detect_onsets (adaptive threshold + sharpness) ─► refine_release(ShotPhases, onsets)

`audio_cues` (what the pipeline runs per file) does the first two steps at once: `decode_envelope` feeds
each decoded chunk to an `EnvelopeBuilder`, which keeps only the envelopes (2 x 200 float64 a second,
~11 MB an hour), never the samples, so its memory does not grow with the sound track's length beyond that.
`load_audio` + `envelope` (the whole track in memory) give the same envelopes, for tests and tools.

The string leaving the fingers makes a short, sharp, broadband sound that phone and camera microphones pick
up well; the pose sees the draw hand only when it is large and unhidden. Sound is a strong cue, not an oracle
(a neighbour's bow, the arrow hitting the target, a clap), so it is only ever used inside the window the pose
allows: `refine_release` never moves a release farther than `window_s` from where the pose put it, and a
shot without a fitting onset keeps its pose release (`release_source = "pose"`).

Time: every time here is on the video clock, whose zero is the first video frame (OpenCV's
CAP_PROP_POS_MSEC, which the Analyzer's frame times come from, counts from the video stream's start). An
audio stream that starts later or earlier than the video (`stream.start_time * stream.time_base`) is shifted
by the difference.

The envelope is the `coach.audioenvelope/1` format: log10 of the mean squared amplitude (samples in [-1, 1])
over 5 ms bins, -12 for digital silence.
"""

from .decoding import (
    DETECT_HZ,
    ENVELOPE_SCHEMA,
    HOP_S,
    LOG_FLOOR,
    WIDE_HZ,
    AudioInfo,
    AudioTrack,
    Envelope,
    EnvelopeBuilder,
    bin_log_energy,
    decode_envelope,
    envelope,
    envelope_beside,
    highpass,
    highpass_sos,
    load_audio,
    load_envelope,
)
from .onsets import (
    BACKGROUND_K,
    BACKGROUND_S,
    BASE_S,
    BROADBAND_MIN,
    DECAY_FROM_S,
    DECAY_MIN,
    DECAY_TO_S,
    FALL_MIN,
    LATE_FROM_S,
    LATE_TO_S,
    REFRACTORY_S,
    RISE_MIN,
    RISE_S,
    Onset,
    OnsetDetector,
    detect_onsets,
)
from .release import (
    EARLIER_SHARE,
    IMPACT_MAX_S,
    IMPACT_MIN_S,
    IMPACT_RISE_MIN,
    OFFSET_AGREE_S,
    OFFSET_LEARN_CONF,
    OFFSET_MAX_S,
    OFFSET_MIN_SHOTS,
    ONSET_SLACK_S,
    PRIOR_S,
    SOUND_EVIDENCE_WEIGHT,
    UNSEEN_AFTER_ANCHOR_S,
    WINDOW_S,
    AudioCues,
    AvOffset,
    FrameTimes,
    SoundTiming,
    audio_cues,
    cues_from_envelope,
    pick_impact,
    pick_release,
    pick_unseen_release,
    refine_release,
)

__all__ = [
    "AudioCues",
    "AudioInfo",
    "AudioTrack",
    "AvOffset",
    "SoundTiming",
    "BACKGROUND_K",
    "BACKGROUND_S",
    "BASE_S",
    "BROADBAND_MIN",
    "DECAY_FROM_S",
    "DECAY_MIN",
    "DECAY_TO_S",
    "DETECT_HZ",
    "EARLIER_SHARE",
    "ENVELOPE_SCHEMA",
    "Envelope",
    "EnvelopeBuilder",
    "FALL_MIN",
    "FrameTimes",
    "HOP_S",
    "IMPACT_MAX_S",
    "IMPACT_MIN_S",
    "IMPACT_RISE_MIN",
    "LATE_FROM_S",
    "LATE_TO_S",
    "LOG_FLOOR",
    "OFFSET_AGREE_S",
    "OFFSET_LEARN_CONF",
    "OFFSET_MAX_S",
    "OFFSET_MIN_SHOTS",
    "ONSET_SLACK_S",
    "Onset",
    "OnsetDetector",
    "PRIOR_S",
    "REFRACTORY_S",
    "RISE_MIN",
    "RISE_S",
    "SOUND_EVIDENCE_WEIGHT",
    "UNSEEN_AFTER_ANCHOR_S",
    "WIDE_HZ",
    "WINDOW_S",
    "audio_cues",
    "bin_log_energy",
    "cues_from_envelope",
    "decode_envelope",
    "detect_onsets",
    "envelope",
    "envelope_beside",
    "highpass",
    "highpass_sos",
    "load_audio",
    "load_envelope",
    "pick_impact",
    "pick_release",
    "pick_unseen_release",
    "refine_release",
]
