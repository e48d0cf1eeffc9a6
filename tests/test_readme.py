"""The README is a front door (issue 45): at most 300 lines; what it links exists; every page of ``docs/``
(where its results, speed notes, settings, layout, learning task and simulation core moved) is linked from
it; its headline table is the committed ledger's.  That every page it links is on the website is checked
in ``tests/pipeline/test_site.py`` (it needs the built site)."""
from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

from simlib.core import paths as core_paths
from simlib.pipeline import site
from simlib.pipeline.claims import headline_markdown, load_ledger

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_LINES = 300
_LINK_RE = re.compile(r"\]\(([^)\s]+)\)")


def local_links(path: Path) -> list[str]:
    """Targets of the Markdown links of ``path`` that are not web addresses or in-page anchors, relative
    to the repository (POSIX; an anchor left out); links inside code blocks are not links."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    here = path.parent.relative_to(ROOT).as_posix()
    out = []
    for target in _LINK_RE.findall(text):
        target = target.split("#", 1)[0]
        if target and not re.match(r"[a-z][a-z0-9+.-]*:", target):
            out.append(posixpath.normpath(posixpath.join(here, target)))
    return out


def readme_doc_links() -> list[str]:
    """The pages of ``docs/`` the README links, relative to ``docs/``."""
    return [t[len("docs/"):] for t in local_links(README) if t.startswith("docs/") and t.endswith(".md")]


def test_readme_is_at_most_300_lines():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"README.md has {n} lines (at most {MAX_LINES}): move sections to a page of docs/"


def test_local_links_resolve_in_the_readme_and_every_docs_page():
    pages = [README] + [ROOT / "docs" / rel for rel in site.doc_files(ROOT / "docs")]
    for page in pages:
        for target in local_links(page):
            assert (ROOT / target).exists(), f"{page.relative_to(ROOT)} links {target}, which does not exist"


def test_local_links_are_repository_paths_outside_code_blocks(tmp_path, monkeypatch):
    page = tmp_path / "docs" / "x.md"
    page.parent.mkdir()
    page.write_text("see [a](speed.md#t), [b](../README.md), [c](https://e.org/x.md)\n```\n[d](no.md)\n```\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert local_links(page) == ["docs/speed.md", "README.md"]


def test_every_top_level_docs_page_is_linked_from_the_readme():
    """The pages the README's sections moved to are reachable from it (decision pages via docs/layout.md)."""
    linked = set(readme_doc_links())
    top = {rel for rel in site.doc_files(ROOT / "docs") if "/" not in rel}
    assert {"results.md", "speed.md", "settings.md", "summaries.md", "layout.md", "reproducing.md",
            "learning_task.md", "simulation_core.md", "data.md"} <= top
    assert top <= linked, f"docs pages the README does not link: {sorted(top - linked)}"
    decisions = {rel for rel in site.doc_files(ROOT / "docs") if rel.startswith("decisions/")}
    assert decisions and decisions <= {t[len("docs/"):] for t in local_links(ROOT / "docs" / "layout.md")}


def test_readme_keeps_the_front_door_sections():
    text = README.read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    for h in ("Two commands", "What the reproduction finds", "Browse the results", "Notebooks",
              "Using simlib from Python", "Documentation", "How to cite"):
        assert h in headings, h
    commands = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    assert "make reproduce" in commands and "make test" in commands
    assert "CITATION.cff" in text.split("## How to cite", 1)[1]


def test_headline_table_is_the_committed_ledgers():
    text = README.read_text(encoding="utf-8")
    start, end = "<!-- claims-headline:start -->\n", "<!-- claims-headline:end -->"
    assert start in text and end in text, "README.md lacks the generated claims-headline block"
    table = text[text.index(start) + len(start):text.index(end)]
    assert table == headline_markdown(load_ledger(core_paths.COMMITTED_LEDGER)), (
        "README's headline table differs from data/results/claims.csv; regenerate it with python -c 'from "
        "simlib.pipeline.claims import headline_markdown as h, load_ledger as l; "
        "print(h(l(\"data/results/claims.csv\")), end=\"\")'")
