"""``python -m simlib.pipeline.check``: results compared column by column, measurements ignored (S27)."""
from __future__ import annotations

import json
import subprocess

import pytest

from simlib.pipeline import check, numerics

SWEEP = """layer,n,trial,ct_norm,scale
L3,50,0,1.0,0.3
L3,50,1,1.1,0.3
L7,50,0,1.2,0.4
"""


def test_identical_csvs_have_no_difference():
    assert check.compare_csv("data/results/x.csv", SWEEP, SWEEP) == []


def test_a_changed_value_is_named_by_file_column_and_row_key():
    new = SWEEP.replace("L3,50,1,1.1,0.3", "L3,50,1,1.1000000000000003,0.3")
    assert check.compare_csv("data/results/x.csv", SWEEP, new) == [
        check.Difference("data/results/x.csv", "ct_norm", "layer=L3, n=50, trial=1", "1.1", "1.1000000000000003")]


def test_rows_are_matched_by_key_not_by_position():
    """The same rows in another order are identical; a row in one file only is named."""
    lines = SWEEP.splitlines()
    reordered = "\n".join([lines[0], lines[3], lines[1], lines[2]]) + "\n"
    assert check.compare_csv("x.csv", SWEEP, reordered) == []
    fewer = "\n".join(lines[:3]) + "\nL7,100,0,1.3,0.5\n"
    assert check.compare_csv("x.csv", SWEEP, fewer) == [
        check.Difference("x.csv", "(row)", "layer=L7, n=100, trial=0", check.ABSENT, "present"),
        check.Difference("x.csv", "(row)", "layer=L7, n=50, trial=0", "present", check.ABSENT)]


def test_added_and_removed_columns_are_named():
    new = SWEEP.replace(",scale\n", ",scale,time_ms\n", 1).replace(",0.3\n", ",0.3,1.5\n").replace(",0.4\n", ",0.4,2\n")
    diffs = check.compare_csv("x.csv", SWEEP, new)
    assert diffs == [check.Difference("x.csv", "(column)", "time_ms", check.ABSENT, "present")]
    assert check.compare_csv("x.csv", new, SWEEP) == [check.Difference("x.csv", "(column)", "time_ms", "present",
                                                                       check.ABSENT)]


def test_the_ledger_is_keyed_by_paper_figure_claim_setting():
    head = "paper,figure,claim,setting,our_value,holds\n"
    old = head + '004,Fig. 4,"a, b",default,1.0,True\n004,Fig. 5,c,default,2.0,False\n'
    new = head + '004,Fig. 5,c,default,2.0,False\n004,Fig. 4,"a, b",default,1.5,True\n'
    assert check.compare_csv("data/results/claims.csv", old, new) == [check.Difference(
        "data/results/claims.csv", "our_value", "paper=004, figure=Fig. 4, claim=a, b, setting=default", "1.0", "1.5")]


def test_a_file_without_a_key_is_compared_row_by_row():
    old, new = "a,b\n1,2\n1,3\n", "a,b\n1,2\n1,4\n"
    assert check.compare_csv("x.csv", old, new) == [check.Difference("x.csv", "b", "row 2", "3", "4")]
    # a 'trial' key that repeats does not identify rows: row numbers again
    dup = "n,trial,v\n1,0,5\n1,0,6\n"
    assert check.compare_csv("x.csv", dup, dup.replace(",6", ",7")) == [check.Difference("x.csv", "v", "row 2", "6", "7")]


def _nb(*outputs):
    return json.dumps({"cells": [{"cell_type": "markdown", "source": "x"}] +
                      [{"cell_type": "code", "source": "", "outputs": o} for o in outputs]})


def test_notebook_outputs_are_compared_per_code_cell():
    a = _nb([{"output_type": "stream", "name": "stdout", "text": "x = 1\n"}], [])
    b = _nb([{"output_type": "stream", "name": "stdout", "text": "x = 2\n"}], [])
    assert check.compare_notebook("n.ipynb", a, a) == []
    [d] = check.compare_notebook("n.ipynb", a, b)
    assert (d.column, d.old, d.new) == ("cell 1 outputs", '"text": "x = 1\\n"', '"text": "x = 2\\n"')
    assert check.compare_notebook("n.ipynb", a, _nb([]))[0].column == "(code cells)"


def test_a_cells_printed_text_split_differently_is_the_same_output():
    one = _nb([{"output_type": "stream", "name": "stdout", "text": "x = 1\ny = 2\n"}])
    two = _nb([{"output_type": "stream", "name": "stdout", "text": "x = 1\n"},
               {"output_type": "stream", "name": "stdout", "text": "y = 2\n"}])
    assert check.compare_notebook("n.ipynb", one, two) == []
    other = _nb([{"output_type": "stream", "name": "stdout", "text": "x = 1\n"},
                 {"output_type": "stream", "name": "stderr", "text": "y = 2\n"}])
    assert len(check.compare_notebook("n.ipynb", one, other)) == 1     # another stream is another output


def test_measurement_files_are_never_compared_and_missing_files_are_named():
    old = {"data/results/a.csv": b"x\n1\n", "data/results/notebook_times.csv": b"a\n1\n",
           "data/measurements/t.csv": b"t\n1\n", "figures/f.png": b"\x89PNG1", "figures/g.png": b"1"}
    new = {"data/results/a.csv": b"x\n1\n", "data/results/notebook_times.csv": b"a\n2\n",
           "data/measurements/t.csv": b"t\n2\n", "figures/f.png": b"\x89PNG2", "figures/h.png": b"1"}
    diffs = check.compare_trees(old, new)
    assert [(d.file, d.column) for d in diffs] == [("figures/f.png", "(bytes)"), ("figures/g.png", "(file)"),
                                                   ("figures/h.png", "(file)")]
    assert check.report([], 3, "HEAD").startswith("results identical: 3 result files compared with HEAD")
    text = check.report(diffs, 5, "abc123")
    assert text.splitlines()[0].startswith("results differ from abc123: 3 difference(s) in 3 of 5 files")
    assert "figures/g.png, (file): present -> <absent>" in text


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_the_command_compares_the_working_copy_with_a_revision(tmp_path, capsys):
    root = tmp_path / "repo"
    (root / "data" / "results").mkdir(parents=True)
    (root / "data" / "measurements").mkdir(parents=True)
    (root / "data" / "results" / "41_x.csv").write_text(SWEEP)
    (root / "data" / "measurements" / "41_x.csv").write_text("layer,n,trial,time_ms\nL3,50,0,1.7\n")
    _git(root, "init", "-q")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "ref")
    # a re-run that changed only a measurement: identical
    (root / "data" / "measurements" / "41_x.csv").write_text("layer,n,trial,time_ms\nL3,50,0,9.9\n")
    assert check.main(["--root", str(root)]) == 0
    assert capsys.readouterr().out.startswith("results identical: 1 result files compared with HEAD")
    # a changed result value: listed, exit status 1, report written
    (root / "data" / "results" / "41_x.csv").write_text(SWEEP.replace("L7,50,0,1.2", "L7,50,0,1.25"))
    report = tmp_path / "ref" / "check.txt"
    assert check.main(["--root", str(root), "--report", str(report)]) == 1
    out = capsys.readouterr().out
    assert "data/results/41_x.csv, ct_norm, layer=L7, n=50, trial=0: 1.2 -> 1.25" in out
    assert report.read_text() == out
    assert "numerical kernels (decision S43): HEAD's results were computed with kernels its requirements.lock " \
           "does not record" in out                   # this repository has no lock
    with pytest.raises(SystemExit):
        check.main(["--root", str(root), "--against", "no-such-rev"])
    # S43: a lock that records this machine's kernels: no note; another machine's: both named
    for recorded, noted in ((numerics.numerics_identity(), False), ("blas openblas SkylakeX; numpy X86_V4", True)):
        (root / "requirements.lock").write_text(f"# pip freeze ...\n{numerics.LOCK_PREFIX}{recorded}\nnumpy==2.4.6\n")
        _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", "requirements.lock")
        _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "lock")
        assert check.main(["--root", str(root)]) == 1
        out = capsys.readouterr().out
        assert ("numerical kernels (decision S43)" in out) == noted
        if noted:
            assert f"computed with {recorded}; this machine's are {numerics.numerics_identity()}" in out


def test_the_numerics_note_is_said_only_when_the_kernels_differ_and_only_beside_differences():
    assert check.numerics_note("blas openblas Haswell; numpy X86_V3", "blas openblas Haswell; numpy X86_V3",
                               "HEAD") is None
    note = check.numerics_note(None, "blas openblas Haswell; numpy X86_V3", "abc")
    assert note.startswith("numerical kernels (decision S43): abc's results were computed with kernels its "
                           "requirements.lock does not record")
    assert check.report([], 2, "abc", note).startswith("results identical")
    assert note not in check.report([], 2, "abc", note)
    diffs = check.compare_trees({"figures/f.png": b"1"}, {"figures/f.png": b"2"})
    assert note in check.report(diffs, 1, "abc", note)
    assert numerics.lock_numerics(f"# x\n{numerics.LOCK_PREFIX}blas a; numpy b\nnumpy==1\n") == "blas a; numpy b"
    assert numerics.lock_numerics("# x\nnumpy==1\n") is None


def test_no_committed_results_csv_holds_a_declared_wall_clock_column():
    """Wall-clock measurements live in data/measurements/, never in a results CSV (issue 47): the
    sweeps pass the trial's timing columns as ``measured=`` (notebook 47's profile search once did not)."""
    from simlib.core import paths as core_paths
    from simlib.papers.selmcast import claims as selmcast_claims

    timing = set(selmcast_claims.BSP_TIMING_COLUMNS) | set(selmcast_claims.MILP_TIMING_COLUMNS)
    results = core_paths.REPO_ROOT / "data" / "results"
    offending = {}
    for csv in sorted(results.glob("*.csv")):
        if csv.name == "notebook_times.csv":      # the runner's own times, declared a measurement file (S27)
            continue
        header = csv.read_text(encoding="utf-8").split("\n", 1)[0].split(",")
        if timing & set(header):
            offending[csv.name] = sorted(timing & set(header))
    assert not offending, f"results CSVs with wall-clock columns (pass them as measured=): {offending}"


LEDGER = """paper,figure,claim,setting,our_value,holds
004,Fig. 4b,MILP super-linear,default,"machine-dependent, see data/measurements/t.csv",True
004,Fig. 4b,scale,default,0.4,False
"""


def test_a_wall_clock_rows_changed_verdict_is_listed_apart_and_is_not_a_result():
    flipped = LEDGER.replace("t.csv\",True", "t.csv\",False")
    diffs = check.compare_csv("data/results/claims.csv", LEDGER, flipped)
    assert [check.is_machine_dependent(d) for d in diffs] == [True]
    text = check.report(diffs, 1, "HEAD")
    assert text.startswith("results identical") and "1 difference(s) in ledger rows that judge wall-clock" in text
    # the same change in a row that is a result is one
    moved = check.compare_csv("data/results/claims.csv", LEDGER, LEDGER.replace("0.4,False", "0.4,True"))
    assert [check.is_machine_dependent(d) for d in moved] == [False]
    text = check.report(diffs + moved, 1, "HEAD")
    assert text.startswith("results differ from HEAD: 1 difference(s) in 1 of 1 files")
    assert "per file:\n       1  data/results/claims.csv" in text
