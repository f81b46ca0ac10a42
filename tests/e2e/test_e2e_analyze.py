"""End to end: the real bundled MediaPipe model on real video files from sample_videos/, against the
ground truth the synthetic archer wrote beside each clip."""

import json
import subprocess
import sys

import pytest

from coach.results import MIN_MARK_CONFIDENCE
from tests.support.paths import SAMPLES

pytestmark = pytest.mark.e2e


def _analyze(clip, out, *extra):
    res = subprocess.run(
        [sys.executable, "-m", "coach", "analyze", str(clip), "--json", str(out), *extra],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    return json.loads(out.read_text(encoding="utf-8")), res.stdout


@pytest.mark.parametrize("name", ["short_1shot", "clean_rh_3shots"])
def test_shots_and_release_frames_match_ground_truth(name, tmp_path):
    clip = SAMPLES / f"{name}.mp4"
    truth = json.loads((SAMPLES / f"{name}.truth.json").read_text(encoding="utf-8"))
    report, stdout = _analyze(clip, tmp_path / "report.json", "--save-pose", str(tmp_path / "track.json"))
    assert report["schema"] == "coach.session/1"
    assert report["frame_count"] == len(truth["landmarks_2d"])
    assert report["handedness"] == truth["handedness"]
    assert len(report["shots"]) == len(truth["shots"])
    for found, true in zip(report["shots"], truth["shots"]):
        assert abs(found["release_frame"] - true["release_frame"]) <= 2, (found, true)
        # full draw is reached between the true draw start and the release (the tracker's anchor can lead the
        # true one while a slow draw eases in: see coach/phases.py)
        assert true["draw_start_frame"] <= found["anchor_frame"] < true["release_frame"], (found, true)
        assert {f["rule"] for f in found["findings"]} >= {"cup_of_water", "kan_shou", "ti_shou", "straight_bow_arm"}
    # the clean clip has no faults put in: none of the shipped rules may flag
    if not truth["faults"]:
        flagged = [(s["index"], f["rule"]) for s in report["shots"] for f in s["findings"] if f["verdict"] == "fault"]
        assert flagged == []
    assert "Shot 1" in stdout

    # re-analysing the saved pose track gives the same analysis without running the model: every mark, every
    # confidence, every verdict and value (the analysis reads poses at the file's precision, coach/pose_frame.py)
    again, _ = _analyze("", tmp_path / "again.json", "--pose-track", str(tmp_path / "track.json"))
    assert again["shots"] == report["shots"]


def _gif(src, dst, fps: int) -> list[int]:
    """`src` made an animated GIF at `fps` (256 dithered colours, each frame's delay in hundredths of a second), as
    a clip is shared as an animation. For each GIF frame, the source frame it shows."""
    import av

    shown = []
    with av.open(str(src)) as inp, av.open(str(dst), "w") as out:
        video = inp.streams.video[0]
        gif = out.add_stream("gif", rate=fps)
        gif.width, gif.height, gif.pix_fmt = video.codec_context.width, video.codec_context.height, "rgb8"
        step, due = float(video.average_rate) / fps, 0.0
        for i, frame in enumerate(inp.decode(video)):
            if i >= due:
                # Through RGB, as a GIF maker takes the picture: the 256 colours are then dithered.
                rgb = av.VideoFrame.from_ndarray(frame.to_ndarray(format="rgb24"), format="rgb24")
                for packet in gif.encode(rgb.reformat(format="rgb8")):
                    out.mux(packet)
                shown.append(i)
                due += step
        for packet in gif.encode():
            out.mux(packet)
    return shown


def test_a_shot_shared_as_a_14_fps_gif(tmp_path):
    """A clip shared as a GIF (14 fps, 256 dithered colours) is read like any video and its shot is found. In that
    picture MediaPipe loses the arms for six frames in the blur of the string leaving, and the hand is seen again
    far back: the release lies somewhere in those frames, so it is within ±2 frames of the GIF frame that shows
    the true release, or said uncertain and the rules timed from it not judged (found 9 frames late, said so).
    Placing it where the arms were last seen moving was tried: MediaPipe folds the arms before losing an archer
    in a dark or small picture too, and three transformed sample clips' releases moved 5-15 frames early."""
    truth = json.loads((SAMPLES / "short_1shot.truth.json").read_text(encoding="utf-8"))
    gif = tmp_path / "射箭_14fps.gif"
    shown = _gif(SAMPLES / "short_1shot.mp4", gif, 14)
    report, _ = _analyze(gif, tmp_path / "report.json")
    assert report["frame_count"] == len(shown)
    (shot,) = report["shots"]
    want = next(k for k, i in enumerate(shown) if i >= truth["shots"][0]["release_frame"])
    if abs(shot["release_frame"] - want) > 2:
        assert shot["release_confidence"] < MIN_MARK_CONFIDENCE, (shot["release_frame"], want)
        timed = {f["rule"]: f["verdict"] for f in shot["findings"] if f["rule"] in ("stillness", "follow_through")}
        assert set(timed.values()) == {"not_assessable"}, timed
