import math

import numpy as np
import pytest

from coach import geometry as g


def P(x, y):
    return np.array([x, y], dtype=float)


@pytest.mark.parametrize(
    "a,b,c,expected",
    [
        (P(0, 0), P(1, 0), P(2, 0), 180.0),
        (P(0, 0), P(1, 0), P(1, 1), 90.0),
        (P(0, 0), P(3, 0), P(0, 4), math.degrees(math.acos(3 / 5))),  # 3-4-5 triangle, angle at B
        (P(1, 1), P(0, 0), P(1, 0), 45.0),
    ],
)
def test_joint_angle_on_known_triangles(a, b, c, expected):
    assert g.joint_angle(a, b, c) == pytest.approx(expected, abs=1e-9)


def test_joint_angle_is_mirror_invariant():
    a, b, c = P(0, 0), P(3, 1), P(5, 4)
    m = np.array([-1.0, 1.0])
    assert g.joint_angle(a * m, b * m, c * m) == pytest.approx(g.joint_angle(a, b, c))


def test_tilt_sign_is_up_positive_whichever_way_the_archer_faces():
    # image y grows downward: a point with smaller y is higher
    assert g.tilt(P(0, 0), P(10, 10)) == pytest.approx(45.0)  # a higher than b
    assert g.tilt(P(10, 0), P(0, 10)) == pytest.approx(45.0)  # mirrored
    assert g.tilt(P(0, 10), P(10, 0)) == pytest.approx(-45.0)


def test_elevation_above_line_both_directions():
    # arrow line from bow wrist (0,0) to draw wrist (±10,0); elbow 20 further on, 10 px up → 45°
    assert g.elevation_above_line(P(20, -10), P(0, 0), P(10, 0)) == pytest.approx(45.0)
    assert g.elevation_above_line(P(-20, -10), P(0, 0), P(-10, 0)) == pytest.approx(45.0)
    assert g.elevation_above_line(P(-20, 10), P(0, 0), P(-10, 0)) == pytest.approx(-45.0)
    assert math.isnan(g.elevation_above_line(P(1, 1), P(0, 0), P(0, 0)))


def test_lean_from_vertical():
    assert g.lean(P(0, 10), P(0, 0)) == pytest.approx(0.0)
    assert g.lean(P(0, 10), P(10, 0)) == pytest.approx(45.0)
    assert g.signed_lean(P(0, 10), P(-10, 0), toward=-1) == pytest.approx(45.0)
