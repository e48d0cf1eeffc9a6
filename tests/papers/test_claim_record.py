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


# ---- verdict strength (S24) and the calibration mark
def _cmp(direction=True, magnitude=None, undecided=(), cause="", fitted="", interval="0.98–1.10×"):
    return Claim("002", "Table 1", "A faster than B", "faster", "1.04×", direction=direction, magnitude=magnitude,
                 tolerance="" if magnitude is None else "in Table 1's range", cause=cause, pairs=10,
                 sides="10 pairs: 7 above 1, 3 below", interval=interval, undecided=undecided, fitted=fitted)


def test_an_undecided_verdict_neither_holds_nor_fails():
    c = _cmp(undecided="direction")
    assert c.verdict == "undecided" and c.holds is None and c.undecided == ("direction",)
    # a decided failing direction fails whatever the magnitude's interval says
    c = _cmp(direction=False, magnitude=True, undecided=("magnitude",), cause="unexplained: slow")
    assert c.verdict == "fails" and c.holds is False
    # a holding direction leaves the claim to the magnitude: undecided, then decided either way
    assert _cmp(magnitude=True, undecided=["magnitude"]).verdict == "undecided"
    assert _cmp(magnitude=False, cause="setting: x").verdict == "fails"
    assert _cmp(magnitude=True, interval="").verdict == "holds"
    # the order of the names is canonical
    assert _cmp(magnitude=True, undecided=("magnitude", "direction")).undecided == ("direction", "magnitude")


def test_undecided_needs_its_interval_and_a_checked_magnitude():
    with pytest.raises(ValueError, match="interval must give"):
        _cmp(undecided="direction", interval="")
    with pytest.raises(ValueError, match="undecided magnitude needs a magnitude"):
        _cmp(undecided="magnitude")
    with pytest.raises(ValueError, match="undecided must name"):
        _cmp(undecided="speed")
    with pytest.raises(ValueError, match="cause must start with one of"):   # a cause, if given, is checked
        _cmp(undecided="direction", cause="because")
    assert _cmp(undecided="direction", cause="setting: holds at the profile").verdict == "undecided"
    with pytest.raises(ValueError, match="observation has no verdicts"):
        Claim("002", "F", "o", "—", "1", direction=None, kind="observation", undecided="direction", interval="x")


def test_fitted_names_a_decision_id_and_pairs_an_int():
    assert _cmp(fitted="PR16").fitted == "PR16"
    with pytest.raises(ValueError, match="fitted must be empty or a decision id"):
        _cmp(fitted="the profile")
    with pytest.raises(ValueError, match="pairs must be"):
        Claim("002", "F", "c", "1", "1", direction=True, pairs=-1)
    assert Claim("002", "F", "c", "1", "1", direction=True, pairs=np.int64(12)).pairs == 12


def test_cross_settings_leaves_an_undecided_claim_without_a_cause():
    """An undecided claim (S24) neither holds nor fails: the causes of the other settings and the search's
    text are not attached to it (an empty cause with "; search: ..." appended would not even be a cause)."""
    from simlib.papers.claim import Claim, cross_settings

    und = Claim("000", "Fig. 11", "gap", "tiny", "1.0", direction=True, pairs=20, interval="0.95–1.12×",
                undecided="direction")
    fails = Claim("000", "Fig. 11", "gap", "tiny", "1.3", direction=False, cause="unexplained: off")
    out = cross_settings({"default": ([und], "the default"), "dt reading": ([fails], "Δt's reading")},
                         where_holds={("Fig. 11", "gap"): "holds at 3 of 16 candidates searched"})
    by = {c.setting: c for c in out}
    assert by["default"].verdict == "undecided" and by["default"].cause == ""
    assert by["dt reading"].cause.startswith("setting: holds at 3 of 16")     # the failing row still gets it
