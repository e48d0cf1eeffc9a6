"""The Claim record (simlib.papers.claim): verdict rules, causes, boundaries of the magnitude helpers."""
import math

import numpy as np
import pytest

from simlib.papers.claim import Claim, observation, ratio_within, within


def test_holds_needs_direction_and_magnitude_where_checked():
    assert Claim("000", "Fig. 5", "c", "2×", "2.1×", direction=True).holds is True
    assert Claim("000", "Fig. 5", "c", "2×", "2.1×", direction=True, magnitude=True,
                 tolerance="within 10 %").holds is True
    wrong_size = Claim("000", "Fig. 5", "c", "2×", "3×", direction=True, magnitude=False,
                       tolerance="within 10 %", cause="stand-in trace: compute 1 s")
    assert wrong_size.holds is False
    wrong_way = Claim("000", "Fig. 5", "c", "2×", "0.9×", direction=np.bool_(False), cause="unexplained: ?")
    assert wrong_way.holds is False and wrong_way.direction is False


def test_a_failing_claim_needs_a_known_cause():
    with pytest.raises(ValueError, match="cause must start with one of"):
        Claim("000", "Fig. 5", "c", "2×", "3×", direction=False)
    with pytest.raises(ValueError, match="cause must start with one of"):
        Claim("000", "Fig. 5", "c", "2×", "3×", direction=False, cause="because")
    with pytest.raises(ValueError, match="decision id"):
        Claim("000", "Fig. 5", "c", "2×", "3×", direction=False, cause="paper ambiguity: the ideal")
    assert Claim("000", "Fig. 5", "c", "2×", "3×", direction=False, cause="paper ambiguity: SM1").holds is False
    with pytest.raises(ValueError, match="cause must be empty"):
        Claim("000", "Fig. 5", "c", "2×", "2×", direction=True, cause="unexplained: x")


def test_magnitude_needs_a_tolerance_and_verdicts_must_be_bools():
    with pytest.raises(ValueError, match="tolerance"):
        Claim("000", "Fig. 5", "c", "2×", "2×", direction=True, magnitude=True)
    with pytest.raises(ValueError, match="direction must be True, False or None"):
        Claim("000", "Fig. 5", "c", "2×", "2×", direction=1)
    with pytest.raises(ValueError, match="direction of claim"):
        Claim("000", "Fig. 5", "c", "2×", "2×", direction=None)


def test_observations_carry_no_verdicts():
    obs = observation("004", "Fig. 4c", "lambda = 0.25 reading", "1.65")
    assert obs.holds is None and obs.kind == "observation" and obs.paper_value == "—"
    with pytest.raises(ValueError, match="no verdicts"):
        Claim("004", "F", "c", "—", "1", direction=True, kind="observation")


def test_within_is_closed_at_the_tolerance():
    assert within(1.1, 1.0, 0.1) and within(0.9, 1.0, 0.1)
    assert not within(1.1000001, 1.0, 0.1)
    assert not within(math.nan, 1.0, 0.5)
    with pytest.raises(ValueError, match="rel"):
        within(1.0, 1.0, -0.1)


def test_ratio_within_is_closed_overlap():
    assert ratio_within(1.0, 1.89, 1.89, 2.55)      # touching at one end counts
    assert not ratio_within(1.0, 1.88, 1.89, 2.55)
    assert ratio_within(2.6, 3.0, 1.0, 2.6)
    with pytest.raises(ValueError, match="lo <= hi"):
        ratio_within(2.0, 1.0, 1.0, 2.0)


def test_setting_is_a_short_label():
    assert Claim("000", "Fig. 5", "c", "2×", "2×", direction=True).setting == "default"
    assert Claim("000", "Fig. 5", "c", "2×", "2×", direction=True, setting="dt=0.02").setting == "dt=0.02"
    for bad in ("", "Profile", "a,b", "x" * 41, None):
        with pytest.raises(ValueError, match="setting must be a short lower-case label"):
            Claim("000", "Fig. 5", "c", "2×", "2×", direction=True, setting=bad)


def test_a_likely_paper_error_names_the_test_of_its_measurement():
    with pytest.raises(ValueError, match="must name the test"):
        Claim("000", "Fig. 14", "c", "2×", "3×", direction=False, cause="likely paper error: groups >= p")
    c = Claim("000", "Fig. 14", "c", "2×", "3×", direction=False,
              cause="likely paper error: SR's groups are never below p (test_sr_groups_at_least_p)")
    assert c.holds is False
