"""The executed notebooks hold nothing that differs between two runs (issue 47, decision S26).

A unit test of the scrubber on crafted outputs (temporary paths, process ids, host names,
timestamps, IPython's cell files), and one notebook executed twice -- two kernels, two
processes -- whose executed copies must be byte-identical.
"""
from __future__ import annotations

import os
import socket
import sys
import tempfile
from pathlib import Path

import pytest

from simlib.pipeline import notebooks as runner

from .test_notebooks import make_sandbox, numba_pool  # noqa: F401  (the session's numba pool fixture)


def _nb_with(*texts):
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("stream", name="stderr", text=t) for t in texts]
    nb.cells = [cell]
    return nb


def test_scrub_removes_paths_pids_hosts_and_timestamps(tmp_path):
    host = socket.gethostname()
    tmp = tempfile.gettempdir()
    crafted = [
        # notebook 22's stored stderr (issue 47): IPython's cell file carries the kernel's pid
        "/tmp/ipykernel_14150/4191132228.py:34: PerformanceWarning: DataFrame is highly fragmented.\n",
        f"{tmp}/simlib-kernel-abc123/kernel.sock and {tmp_path}/data/results/x.csv\n",
        f"{Path.home()}/.cache/simlib/trials\n",
        f"{sys.prefix}/lib/python3.11/site-packages/pandas/core/frame.py:1: Warning\n",
        f"worker pid 4242 on {host}, PID: 17, process=99\n",
        "started 2026-11-29T00:50:03.123456+00:00, done 2026-11-29 01:02:03, <object at 0x7f3a2c>\n",
    ]
    [out] = runner.scrub(_nb_with(*crafted), tmp_path).cells[0].outputs   # one stream: merged
    texts = out["text"].splitlines(keepends=True)
    assert len(texts) == len(crafted)
    assert texts[0] == "<cell>:34: PerformanceWarning: DataFrame is highly fragmented.\n"
    assert texts[1] == "<tmp>/... and ./data/results/x.csv\n"     # a temporary path's names are random
    assert texts[2] == "~/.cache/simlib/trials\n"
    assert texts[3] == "<python>/lib/python3.11/site-packages/pandas/core/frame.py:1: Warning\n"
    assert texts[4].startswith("worker pid <pid> on ") and "PID: <pid>, process=<pid>" in texts[4]
    assert f" {host}," not in texts[4] and " on <host>," in texts[4]
    assert texts[5] == "started <timestamp>, done <timestamp>, <object>\n"
    joined = "".join(texts)
    for leaked in ("14150", "4242", tmp + "/", str(tmp_path), "2026-11-29", "abc123"):
        assert leaked not in joined


def test_scrub_merges_a_cells_consecutive_outputs_of_one_stream(tmp_path):
    """Where a kernel's flushes split a cell's printed text depends on timing (notebook 41's tables
    came out as one output in one run and two in the next): consecutive outputs of one stream
    become one, in order; another stream or a display output in between keeps them apart."""
    import nbformat

    nb = _nb_with("a\n", "b\n")
    nb.cells[0].outputs += [nbformat.v4.new_output("stream", name="stdout", text="c\n"),
                            nbformat.v4.new_output("stream", name="stdout", text="d\n"),
                            nbformat.v4.new_output("display_data", data={"text/plain": "x"}),
                            nbformat.v4.new_output("stream", name="stdout", text="e\n")]
    out = runner.scrub(nb, tmp_path).cells[0].outputs
    assert [(o.get("name"), o.get("text")) for o in out] == [("stderr", "a\nb\n"), ("stdout", "c\nd\n"),
                                                              (None, None), ("stdout", "e\n")]


def test_scrub_leaves_results_alone(tmp_path):
    """Numbers, dates without a time, words that contain the host name and ids that are not named as
    process ids are results, not run-specific noise."""
    text = "ratio 1.32× at n = 1,000; trial 4242; 2026-11-29 release; pid-less run; 0x10 flag\n"
    assert runner.scrub(_nb_with(text), tmp_path).cells[0].outputs[0]["text"] == text
    assert runner.scrub_text("on myhost.local and myhostile", [("myhost", "<host>")]) == \
        "on <host>.local and myhostile"


NOISY = '''# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python (simlib)
#     language: python
#     name: simlib
# ---

# %% tags=["parameters"]
profile = "full"
workers = None
seed = 0

# %%
import os, socket, tempfile, time, warnings, datetime

warnings.warn("a warning from a cell: its file is /tmp/ipykernel_<pid>/<hash>.py")
print("pid", os.getpid(), "on", socket.gethostname(), "in", tempfile.mkdtemp())
print("at", datetime.datetime.now().isoformat(), object())
'''


@pytest.mark.notebooks
@pytest.mark.timeout(900)
def test_a_notebook_executed_twice_gives_byte_identical_outputs(tmp_path, numba_pool):  # noqa: F811
    """Notebook 20 (the cheapest with a sweep and claims: about 15 s quick) and a probe that prints a
    pid, the host, a temporary folder, a timestamp and a warning from its cell, each run twice with
    the quick profile in two kernels (two processes): the executed copies are byte-identical."""
    sandbox = make_sandbox(tmp_path / "repo", numba_pool)
    probe = sandbox / "notebooks" / "06_noisy.py"
    probe.write_text(NOISY)
    runner.sync_pair(probe)           # paired, as every notebook is: its cells keep their ids
    sources = [sandbox / "notebooks" / "20_pr_sec3_spectral_weights.py", probe]
    copies = []
    for attempt in range(2):
        results = runner.run_notebooks(sources, profile="quick", workers=1, root=sandbox,
                                       build_dir=tmp_path / "build", echo=None)
        assert all(r.ok for r in results), [r.error for r in results if not r.ok]
        copies.append({r.name: r.output.read_bytes() for r in results})
        pids = {r.name: r.output.read_text() for r in results}
    for name in copies[0]:
        a, b = copies[0][name], copies[1][name]
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        assert a == b, f"{name}: first difference at byte {at}: {a[at - 150:at + 80]!r} vs {b[at - 150:at + 80]!r}"
    noisy = pids["06_noisy"]
    assert str(os.getpid()) not in noisy and "pid <pid>" in noisy and "<timestamp>" in noisy
    assert "in <tmp>/...\\n" in noisy and "<cell>:" in noisy and "on <host> in" in noisy
