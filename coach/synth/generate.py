"""Render a scenario to an MP4 plus its ``.truth.json`` sidecar."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from coach.synth.body import Appearance, BodyShape
from coach.synth.bow import BowState, bow_axes, bow_capsules
from coach.synth.camera import Camera, homography
from coach.synth.figure import body_capsules
from coach.synth.pose import Pose, pose_from_vector
from coach.synth.raster import Canvas, Capsule, draw_capsules
from coach.synth.rig import MP_ORDER, mirror_rig, solve_rig
from coach.synth.scenarios import Scenario
from coach.synth.scene import SensorNoise, make_background, view_camera
from coach.synth.timeline import Timeline, build_timeline
from coach.video_io import VideoWriter

TRUTH_SCHEMA = "coach.truth/1"
GENERATOR_VERSION = "synth-1"

_SHIRTS = [(150, 80, 40), (40, 40, 150), (60, 120, 60), (170, 170, 170), (40, 90, 160), (110, 50, 110)]
_TROUSERS = [(60, 55, 50), (90, 60, 30), (40, 40, 40), (120, 110, 100)]
_SKINS = [(140, 170, 215), (110, 140, 190), (80, 105, 150), (160, 190, 230)]
_HAIR = [(30, 30, 35), (30, 50, 80), (60, 60, 65)]


@dataclass(frozen=True)
class Cast:
    body: BodyShape
    look: Appearance


def pick_cast(rng: np.random.Generator, sleeves: bool | None = None) -> Cast:
    body = BodyShape(stature=float(rng.uniform(1.60, 1.88)), build=float(rng.uniform(0.9, 1.15)))
    look = Appearance(
        skin=_SKINS[rng.integers(len(_SKINS))],
        hair=_HAIR[rng.integers(len(_HAIR))],
        shirt=_SHIRTS[rng.integers(len(_SHIRTS))],
        trousers=_TROUSERS[rng.integers(len(_TROUSERS))],
        long_sleeves=bool(rng.integers(2)) if sleeves is None else sleeves,
    )
    return Cast(body, look)


def _mirror_caps(caps: list[Capsule]) -> list[Capsule]:
    m = np.array([-1.0, 1.0, 1.0])
    return [Capsule(c.a * m, c.b * m, c.ra, c.rb, c.colour, c.ambient, c.diffuse) for c in caps]


def _shift_caps(caps: list[Capsule], offset: np.ndarray) -> list[Capsule]:
    return [Capsule(c.a + offset, c.b + offset, c.ra, c.rb, c.colour, c.ambient, c.diffuse) for c in caps]


def truth_points(joints: dict[str, np.ndarray], cam: Camera) -> list[list[float] | None]:
    pts = np.array([joints[n] for n in MP_ORDER])
    uv, z = cam.project(pts)
    out: list[list[float] | None] = []
    for (u, v), zz in zip(uv, z):
        inside = zz > 0 and 0 <= u < cam.width and 0 <= v < cam.height
        out.append([round(float(u), 1), round(float(v), 1)] if inside else None)
    return out


def generate_clip(scn: Scenario, out_dir: str | Path, seed: int | None = None, fps: int | None = None) -> Path:
    """Write ``<out_dir>/<name>.mp4`` and ``<name>.truth.json``; returns the MP4 path."""
    seed = scn.seed if seed is None else seed
    fps = scn.fps if fps is None else fps
    rng = np.random.default_rng(seed)
    # Archers wear sleeves to the wrist (as with an arm guard): a bare forearm the colour of a fingerless hand
    # leaves MediaPipe no wrist to find, so it guesses several centimetres off.
    cast = pick_cast(rng, sleeves=True)
    lefty = scn.handedness == "left"
    cam = view_camera(scn.view, scn.width, scn.height, scale=1.0, lefty=lefty)
    move = scn.camera_move
    # A moving camera sees more of the background than one frame: render it wide, warp it per frame.
    bg_cam = _wide(cam) if move is not None else cam
    background = make_background(bg_cam, rng, scn.cluttered, avoid=(cast.look.shirt, cast.look.skin))
    timeline = build_timeline(list(scn.shots), fps, rng, cast.body)
    bystander = pick_cast(rng) if scn.bystander else None
    by_offset = np.array([-1.7 if not lefty else 1.7, 0.0, -2.6])
    noise = SensorNoise(np.random.default_rng(seed + 7919), (scn.height, scn.width), scn.noise_sigma)
    n = len(timeline.poses)
    cams = [cam] * n
    camera_truth = None
    if move is not None:
        shot = timeline.shots[move.shot]
        a, r = int(shot["anchor_frame"]), int(shot["release_frame"])
        start, end = a + round(move.start_s * fps), r - 1 - round(move.end_s * fps)
        cams = move.path(cam, n, fps, start, end, np.random.default_rng(seed + 104729))
        camera_truth = {**asdict(move), "start_frame": start, "end_frame": end}

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    mp4 = out_dir / f"{scn.name}.mp4"
    landmarks: list[list[list[float] | None]] = []
    # A rotated clip stores its frames turned so that the display rotation turns them upright again.
    k = (-scn.rotation // 90) % 4
    if scn.rotation % 90:
        raise ValueError(f"rotation must be a multiple of 90, got {scn.rotation}")
    coded = (scn.height, scn.width) if k % 2 else (scn.width, scn.height)
    with VideoWriter(mp4, *coded, fps, crf=scn.crf, rotation=scn.rotation) as vw:
        frames = _frames(timeline, cast, cams, background, bg_cam, lefty, bystander, by_offset, noise)
        for frame, lm in frames:
            vw.write(np.ascontiguousarray(np.rot90(frame, k)) if k else frame)
            landmarks.append(lm)

    truth = {
        "schema": TRUTH_SCHEMA,
        "fps": fps,
        "width": scn.width,
        "height": scn.height,
        "handedness": scn.handedness,
        "view": scn.view,
        "scenario": scn.name,
        "description": scn.description,
        "seed": seed,
        "generator_version": GENERATOR_VERSION,
        "bystander": scn.bystander,
        "stature_m": round(cast.body.stature, 3),
        "n_frames": len(landmarks),
        **({"camera_move": camera_truth} if camera_truth else {}),
        **({"rotation": scn.rotation, "coded_width": coded[0], "coded_height": coded[1]} if scn.rotation else {}),
        "shots": timeline.shots,
        "faults": timeline.faults,
        "landmarks_2d": landmarks,
    }
    (out_dir / f"{scn.name}.truth.json").write_text(dumps_truth(truth), encoding="utf-8")
    return mp4


def dumps_truth(truth: dict) -> str:
    # One frame per line: small diffs and readable files, and byte-identical output for a given seed.
    head = {k: v for k, v in truth.items() if k != "landmarks_2d"}
    body = json.dumps(head, ensure_ascii=False, separators=(", ", ": "))[:-1]
    frames = ",\n".join(json.dumps(f, separators=(",", ":")) for f in truth["landmarks_2d"])
    return body + ', "landmarks_2d": [\n' + frames + "\n]}\n"


def _wide(cam: Camera, margin: float = 0.35) -> Camera:
    """The same camera with a larger sensor (same focal length): room for pan, tilt and shake."""
    w = int(cam.width * (1 + 2 * margin)) // 2 * 2
    h = int(cam.height * (1 + 2 * margin)) // 2 * 2
    vfov = float(np.degrees(2 * np.arctan((h / 2) / cam.focal)))
    return Camera(cam.position, cam.look_at, vfov, w, h)


def _frames(
    tl: Timeline,
    cast: Cast,
    cams: list[Camera],
    background: np.ndarray,
    bg_cam: Camera,
    lefty: bool,
    bystander: Cast | None,
    by_offset: np.ndarray,
    noise: SensorNoise,
):
    release_nock: np.ndarray | None = None
    release_dir: np.ndarray | None = None
    last_nock = last_dir = None
    by_caps: list[Capsule] = []
    if bystander is not None:
        by_rig = solve_rig(Pose(head_yaw=-15.0, stance_half=0.12, front_foot_yaw=70.0), bystander.body)
        by_caps = _shift_caps(body_capsules(by_rig, bystander.body, bystander.look), by_offset)
    for i, vec in enumerate(tl.poses):
        pose = pose_from_vector(vec)
        rig = solve_rig(pose, cast.body)
        j = rig.joints
        if pose.walk_x:  # walking off the mark (a long session's idle stretch): the whole figure moves
            for name in j:
                j[name] = j[name] + np.array([pose.walk_x, 0.0, 0.0])
        grip = j["hand_l"]
        nock = j["hand_r"] + (j["index_r"] - j["hand_r"]) * 0.5
        on_string = pose.on_string >= 0.5
        state, since = tl.arrow[i]
        if state == "nocked" and on_string:
            last_nock = nock
            last_dir = bow_axes(grip, nock, True)[0]
        if state == "flying" and release_nock is None:
            release_nock, release_dir = last_nock, last_dir
        if state != "flying":
            release_nock = release_dir = None
        bow = BowState(grip, nock, on_string, state, since, release_nock, release_dir)
        caps = body_capsules(rig, cast.body, cast.look) + bow_capsules(bow, cast.body.scale)
        if lefty:
            caps = _mirror_caps(caps)
            rig = mirror_rig(rig)
        cam = cams[i]
        bg = background
        if cam is not bg_cam:
            h = homography(bg_cam, cam)
            bg = cv2.warpPerspective(background, h, (cam.width, cam.height), flags=cv2.INTER_LINEAR)
        canvas = Canvas.over(bg)
        draw_capsules(canvas, cam, by_caps + caps)
        yield noise.apply(canvas.colour), truth_points(rig.joints, cam)
