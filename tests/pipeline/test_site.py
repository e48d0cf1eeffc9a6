"""The static website of the executed notebooks (simlib.pipeline.site, `make site`; decision W1).

The site is built once per module from the committed notebooks, ledger and figures into a
temporary folder (never into the repository).  The checks of its files run everywhere; the
browser test opens it in headless Chromium (Debian's ``chromium``) and is skipped where that
is absent.
"""
from __future__ import annotations

import base64
import csv
import functools
import http.server
import io
import itertools
import json
import posixpath
import re
import shutil
import subprocess
import threading
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from simlib.core import paths as core_paths
from simlib.pipeline import site

REPO = core_paths.REPO_ROOT
NOTEBOOKS = sorted(p for p in (REPO / "notebooks").glob("*.ipynb") if re.fullmatch(r"\d\d_.+", p.stem))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


#: ``slow``: the tests of the site built from every committed notebook, ledger row and figure (the module fixture
#: ``built``: 13-15 CPU-s) and of Chromium loading it (8-9 CPU-s), measured in the fast tier 2026-11-29 (tests/README.md).
#: The fast tier keeps the same code on the tiny site (``tiny``) and the refusals below.
BUILDS_THE_SITE = pytest.mark.slow


def _ledger_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    counts = site.build_site(out)
    return out, counts


# --- the build's outputs (no browser) ------------------------------------------------------------

@BUILDS_THE_SITE
def test_one_page_per_notebook_linked_from_the_index_under_its_paper(built):
    out, counts = built
    assert counts["notebooks"] == len(NOTEBOOKS) > 0
    index = (out / "index.html").read_text(encoding="utf-8")
    # the grouping the issue asks for: each notebook under the paper that declares it (Paper.notebooks;
    # 000 = 00, 10-16; 002 = 20-23; 003 = 30; 004 = 40-47), the others under "beyond" (90-92)
    from simlib.papers.registry import PAPERS

    expected = {stem: p.id for p in PAPERS for stem in p.notebooks}
    sections = dict(re.findall(r'<h2 id="group-([^"]+)">.*?</h2>(.*?)</ul>', index, re.S))
    for nb in NOTEBOOKS:
        assert (out / "notebooks" / f"{nb.stem}.html").is_file()
        assert f'href="notebooks/{nb.stem}.html"' in sections[expected.get(nb.stem, "beyond")], nb.stem


@BUILDS_THE_SITE
def test_ledger_table_has_one_row_per_claims_csv_row(built):
    out, counts = built
    rows = _ledger_rows(core_paths.COMMITTED_LEDGER)
    page = (out / "claims.html").read_text(encoding="utf-8")
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert body.count("<tr>") == len(rows) == counts["ledger_rows"]
    # every link of the table points at a page of the site
    for href in re.findall(r'href="(notebooks/[^"#]+)', body):
        assert (out / href).is_file(), href


@BUILDS_THE_SITE
def test_summary_page_has_every_papers_section_text_and_claim_statuses(built):
    out, _ = built
    page = (out / "summary.html").read_text(encoding="utf-8")
    ledger = pd.read_csv(core_paths.COMMITTED_LEDGER)
    _, summaries = site.doc_summaries((REPO / "docs" / "summaries.md").read_text(encoding="utf-8"))
    from simlib.papers.registry import PAPERS

    ids = [p.id for p in PAPERS]                 # every registered paper, not a hand-kept list (issue 46)
    assert {"000", "002", "003", "004"} <= set(summaries) <= set(ids)   # a new paper may have no section yet
    for paper in ids:
        assert f'id="paper-{paper}"' in page
    for paper, text in summaries.items():   # the page's prose is on the site (its first words, escaped)
        first = re.sub(r"[*_`\[\]]", "", text.split("\n", 1)[0])[:30]
        assert first.split()[0] in page, paper
    n_claims = len(ledger[ledger["kind"] == "claim"].drop_duplicates(["paper", "figure", "claim"]))
    assert sum(b.count("<tr") for b in re.findall(r"<tbody>(.*?)</tbody>", page, re.S)) == n_claims
    assert 'href="summary.html"' in (out / "index.html").read_text(encoding="utf-8")


def test_doc_summaries_splits_the_page_by_paper():
    doc = "# Reproduction summaries\nintro\n## 000 Selective\n**easy**: x\n### sub\nz\n\n## 004 SelMcast\ny\n"
    assert site.doc_summaries(doc) == ("# Reproduction summaries\nintro\n",
                                       {"000": "**easy**: x\n### sub\nz", "004": "y"})
    assert site.doc_summaries("# no section") == ("# no section", {})



def _plain(text: str, markup: str = "markdown") -> str:
    """``text`` (Markdown, or ``markup="html"``) with its tags or link syntax and emphasis/code marks
    dropped, entities unescaped, whitespace collapsed: the words a reader sees."""
    import html as html_lib

    if markup == "html":   # a block's tags separate words, an inline tag does not
        text = re.sub(r"</?(p|li|ul|ol|h\d|table|thead|tbody|tr|td|th|div|pre|br|blockquote)\b[^>]*>", " ", text)
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", text))
    else:   # links as their text; list markers dropped (a numbered line inside a paragraph is text)
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
        lines, in_list = text.split("\n"), False
        for i, line in enumerate(lines):
            marker = re.match(r"\s*(?:[-+]|(\d+)\.)\s+", line)
            if marker and (i == 0 or in_list or marker.group(1) in (None, "1")):
                lines[i], in_list = line[marker.end():], True
        text = "\n".join(lines)
    return " ".join(re.sub(r"[*_`¶\\]", "", text).split())


@BUILDS_THE_SITE
def test_every_docs_page_is_on_the_site_with_its_text_and_working_links(built):
    """Issue 45 / W4: every docs/**/*.md is a page of the site (summaries.md and settings.md feed their own
    pages), listed on the documentation index and in every page's header; its headings, paragraphs and list
    items are on its page word for word and its tables row for row (nbconvert's Markdown, with tables in
    list items), and no relative link of these pages points at a file the site lacks."""
    out, _ = built
    docs = site.doc_files(REPO / "docs")
    assert {"results.md", "speed.md", "summaries.md", "settings.md", "decisions/site.md"} <= set(docs)
    assert site.doc_href("summaries.md") == "summary.html" and site.doc_href("speed.md") == "docs/speed.html"
    index = (out / "docs" / "index.html").read_text(encoding="utf-8")
    assert 'href="docs/index.html"' in (out / "index.html").read_text(encoding="utf-8")
    for rel in docs:
        href = site.doc_href(rel)
        assert f'href="{posixpath.relpath(href, "docs")}"' in index, rel
        page = (out / href).read_text(encoding="utf-8")
        assert f'href="{"../" * href.count("/")}docs/index.html"' in page, rel
        text = (REPO / "docs" / rel).read_text(encoding="utf-8")
        prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
        plain = _plain(page, "html")
        for heading in re.findall(r"^#+ (.+)$", prose, re.M):
            if not re.match(r"\d{3} ", heading):   # summary.html titles a paper's section by the registry
                assert _plain(heading) in plain, (rel, heading)
        lines = prose.splitlines()   # a table: its header, its separator line, the "|" lines after it
        seps = [i for i, r in enumerate(lines) if re.match(r"^\s*\|[-:| ]+\|\s*$", r)]
        n_rows = sum(1 + len(list(itertools.takewhile(lambda r: r.lstrip().startswith("|"), lines[i + 1:])))
                     for i in seps)
        assert rel in site.DOC_PAGES or page.count("<tr>") == n_rows, rel
        for para in re.split(r"\n\s*\n", prose):   # every paragraph and list item, word for word
            para = re.sub(r"(?m)^#+ .*$", "", para)     # (headings are checked above)
            if para.strip() and not re.match(r"\s*[|<]", para):
                assert _plain(para) in plain, (rel, para[:80])
    pages = [out / "index.html", out / "summary.html", out / "settings.html"] + list((out / "docs").rglob("*.html"))
    for page in pages:
        for href in re.findall(r'href="([^"#]+)', page.read_text(encoding="utf-8")):
            if not re.match(r"[a-z]+:", href):
                assert (page.parent / href).resolve().is_file(), (page.relative_to(out), href)


@BUILDS_THE_SITE
def test_every_docs_page_the_readme_links_is_on_the_site(built):
    from tests.test_readme import readme_doc_links

    out, _ = built
    linked = readme_doc_links()
    assert len(linked) >= 10
    for rel in linked:
        assert (REPO / "docs" / rel).is_file(), rel
        assert (out / site.doc_href(rel)).is_file(), rel


def test_doc_links_point_at_the_pages_on_the_site():
    """A link from one docs page to another (or to the README) is rewritten to that page's site address,
    relative to the linking page; any other link is left alone."""
    md = ("[a](speed.md#x) [b](summaries.md) [c](../README.md) [d](decisions/site.md) [e](../data/x.md) "
          "[f](https://e.org/y.md)")
    hrefs = re.findall(r'href="([^"]+)"', site._render_doc(md, "results.md"))
    assert hrefs == ["speed.html#x", "../summary.html", "../index.html", "decisions/site.html", "../data/x.md",
                     "https://e.org/y.md"]
    hrefs = re.findall(r'href="([^"]+)"', site._render_doc("[a](../speed.md) [b](../../README.md)", "decisions/s.md"))
    assert hrefs == ["../speed.html", "../../index.html"]
    hrefs = re.findall(r'href="([^"]+)"', site._render_doc("[r](results.md)", "summaries.md"))
    assert hrefs == ["docs/results.html"]

@BUILDS_THE_SITE
def test_every_notebook_figure_has_its_file_and_provenance_underneath(built):
    out, _ = built
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    for nb in NOTEBOOKS:
        data = json.loads(nb.read_text(encoding="utf-8"))
        n_images = sum(1 for c in data["cells"] for o in c.get("outputs", [])
                       if any(k.startswith("image/") for k in o.get("data", {})))
        page = (out / "notebooks" / f"{nb.stem}.html").read_text(encoding="utf-8")
        srcs = re.findall(r'<img[^>]*src="([^"]+)"', page)
        assert len(srcs) == n_images, nb.stem
        for src in srcs:
            assert not src.startswith(("http", "data:")) and (out / "notebooks" / src).stat().st_size > 0
        # the provenance follows each figure: the text between one image and the next holds it
        for chunk in re.split(r"<img ", page)[1:]:
            prov = re.search(r'<p class="provenance">Figure \d+ · notebook .*?</p>', chunk, re.S)
            assert prov, nb.stem
            for fact in (nb.stem, "profile ", "trials ", "parameters: ", f"built from commit {head}"):
                assert fact in prov.group(0), (nb.stem, fact)


@BUILDS_THE_SITE
def test_figures_gallery_shows_every_committed_png_with_its_pdf(built):
    out, _ = built
    page = (out / "figures.html").read_text(encoding="utf-8")
    pngs = sorted(core_paths.COMMITTED_FIGURES.glob("*.png"))
    assert len(re.findall(r'<img src="figures/', page)) == len(pngs)
    for png in pngs:
        assert (out / "figures" / png.name).read_bytes() == png.read_bytes()
        assert f'href="figures/{png.stem}.pdf"' in page
    assert page.count('class="provenance"') == len(pngs)


@BUILDS_THE_SITE
def test_settings_page_lists_each_papers_chosen_settings_and_is_linked_from_every_page(built):
    import html as html_lib

    from simlib.papers.registry import PAPERS, chosen_settings

    out, _ = built
    page = (out / "settings.html").read_text(encoding="utf-8")
    sections = dict(re.findall(r'<h2 id="paper-(\d+)">.*?</h2>(.*?)</table>', page, re.S))
    assert sorted(sections) == [p.id for p in PAPERS]
    for p in PAPERS:
        rows = [[html_lib.unescape(re.sub(r"<.*?>", "", c)) for c in re.findall(r"<td>(.*?)</td>", r)]
                for r in re.findall(r"<tr><td>.*?</tr>", sections[p.id])]
        assert [(r[0], r[2]) for r in rows] == [(c.parameter, c.decision) for c in chosen_settings(p.id)]
    row = re.search(r"<tr><td><code>dt_s</code></td>(.*?)</tr>", sections["000"]).group(1)
    assert "<td>0.1</td><td>E2</td>" in row
    assert 'href="settings.html"' in (out / "index.html").read_text(encoding="utf-8")
    nb_page = next((out / "notebooks").glob("*.html")).read_text(encoding="utf-8")
    assert 'href="../settings.html"' in nb_page


@BUILDS_THE_SITE
def test_site_references_nothing_outside_itself(built):
    out, _ = built
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'<(script|link|img)[^>]+(src|href)="(https?:)?//', text), page.name


# --- the ledger links, on hand-made notebooks --------------------------------------------------------

def _png() -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1, 1))
    ax.plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _notebook(path: Path, title: str, record_text: str | None = None, image: bool = False) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('profile = "full"\ntrials = 7\nn_values = [4, 8]')
    params.metadata["tags"] = ["parameters"]
    record = nbformat.v4.new_code_cell("run.record(...)")
    if record_text:
        record.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": record_text},
                                                 execution_count=2)]
    plot = nbformat.v4.new_code_cell("plot()")
    if image:
        plot.outputs = [nbformat.v4.new_output("display_data", data={"image/png": _png(), "text/plain": "<Figure>"})]
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {title}"), params, record, plot]
    nbformat.write(nb, str(path))
    return nb


def _row(paper, figure, claim, notebook=""):
    return {"paper": paper, "figure": figure, "claim": claim, "paper_value": "1", "our_value": "1",
            "tolerance": "", "direction": "True", "magnitude": "", "holds": "True", "cause": "", "note": "",
            "kind": "claim", "notebook": notebook, "profile": "full", "trials": "7", "parameters": "{}"}


@pytest.fixture
def tiny(tmp_path):
    nbs = tmp_path / "notebooks"
    nbs.mkdir()
    a = _notebook(nbs / "11_x_fig5-7_a.ipynb", "A (Figs. 5, 6, 7)",
                  "claim recorded: Fig. 5: A holds: paper 1 vs ours 1 (holds)", image=True)
    _notebook(nbs / "12_x_fig8-10_b.ipynb", "B (Figs. 8, 9, 10)")
    _notebook(nbs / "21_y.ipynb", "C")
    rows = [_row("000", "Fig. 5", "A holds"),                 # printed by 11's record cell
            _row("000", "Fig. 9(b)", "B trend"),              # no notebook column, printed nowhere: unknown
            _row("000", "Fig. 9(b)", "named", "11_x_fig5-7_a"),  # its notebook column wins
            _row("000", "Eq. 3", "nowhere"),                  # two notebooks of 000, no clue: unknown
            _row("002", "Table 1", "only one", "21_y"),       # named, printed nowhere: its record cell
            _row("beyond", "Fig. 5", "beyond")]               # no group "beyond" here: unknown
    ledger = tmp_path / "claims.csv"
    pd.DataFrame(rows).to_csv(ledger, index=False)
    figures = tmp_path / "figures"
    figures.mkdir()
    return nbs, ledger, figures, a.cells[2].id


def test_link_rows_prefers_the_notebook_column_then_the_printed_cell(tiny):
    """A row that names its notebook links to the cell that printed it, else to the notebook's only
    ``run.record(`` cell (notebook 22 records a list and shows a table: issue 34)."""
    nbs, ledger, _, record_cell = tiny
    from simlib.pipeline.claims import load_ledger

    links = site.link_rows(load_ledger(ledger), site.read_notebooks(nbs))
    record_21 = nbformat.read(str(nbs / "21_y.ipynb"), as_version=4).cells[2].id
    assert links == [site.RowLink("11_x_fig5-7_a", record_cell, "output"),
                     site.RowLink(None, None, "none"),
                     site.RowLink("11_x_fig5-7_a", record_cell, "ledger"),   # its only run.record cell
                     site.RowLink(None, None, "none"),
                     site.RowLink("21_y", record_21, "ledger"),
                     site.RowLink(None, None, "none")]


def test_tiny_site_links_rows_to_cells_and_writes_figure_provenance(tiny, tmp_path):
    nbs, ledger, figures, record_cell = tiny
    out = tmp_path / "out"
    counts = site.build_site(out, notebooks_dir=nbs, ledger_path=ledger, figures_dir=figures, repo=tmp_path)
    assert counts == {"notebooks": 3, "figures": 1, "ledger_rows": 6, "commit": "unknown (not a git checkout)"}
    table = (out / "claims.html").read_text(encoding="utf-8")
    assert f'href="notebooks/11_x_fig5-7_a.html#cell-id={record_cell}"' in table
    # the count sentence accounts for every row (issue 34: rows linking to a page only were left out)
    counts = re.search(r"recorded the row: (\d+) to the very cell; (\d+) to the notebook's page .*?; (\d+) unknown",
                       table, re.S)
    assert tuple(map(int, counts.groups())) == (3, 0, 3) and sum(map(int, counts.groups())) == 6
    page = (out / "notebooks" / "11_x_fig5-7_a.html").read_text(encoding="utf-8")
    assert f'id="cell-id={record_cell}"' in page
    prov = re.search(r'<p class="provenance">Figure 1 .*?</p>', page, re.S).group(0)
    # profile and trials as the ledger recorded them; parameters from the parameters cell
    assert "profile full" in prov and "trials 7" in prov and "n_values = [4, 8]" in prov
    # a rebuild replaces the site it wrote before
    site.build_site(out, notebooks_dir=nbs, ledger_path=ledger, figures_dir=figures, repo=tmp_path)
    assert (out / site.MARKER).is_file()


@pytest.mark.parametrize("make_out", [
    lambda tmp: (tmp / "f.txt", (tmp / "f.txt").write_text("x")),                  # a file
    lambda tmp: (tmp / "d", (tmp / "d").mkdir(), (tmp / "d" / "keep.txt").write_text("x")),  # a foreign folder
    lambda tmp: (REPO, None),                                                       # the repository
])
def test_out_that_is_not_a_site_is_refused_before_anything_is_written(tmp_path, make_out, capsys):
    out = make_out(tmp_path)[0]
    before = sorted(p.name for p in out.parent.iterdir())
    assert site.main(["--out", str(out)]) == 2
    assert "--out" in capsys.readouterr().err
    assert sorted(p.name for p in out.parent.iterdir()) == before
    with pytest.raises(ValueError, match="--out"):
        site.build_site(out)


# --- in a real browser ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"Chromium not found ({CHROMIUM}): install Debian's chromium to run the browser test")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (requirements.txt) is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def served(built):
    out, _ = built

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/", out
    server.shutdown()
    thread.join()


_BROKEN_IMAGES = "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"


@BUILDS_THE_SITE
def test_in_chromium_every_page_loads_with_its_images_and_the_ledger_sorts(browser, served):
    base, out = served
    page = browser.new_page()
    page.set_default_timeout(60_000)
    foreign = []
    page.on("request", lambda r: None if r.url.startswith(base) or r.url.startswith("data:") else foreign.append(r.url))

    response = page.goto(base + "index.html", wait_until="load")
    assert response.ok and "four papers" in page.title() + page.inner_text("h1")
    assert page.locator("main a[href^='notebooks/']").count() == len(NOTEBOOKS)

    pages = ["index.html", "claims.html", "figures.html", "settings.html", "summary.html", "docs/index.html"] + [
        f"notebooks/{nb.stem}.html" for nb in NOTEBOOKS] + [site.doc_href(rel) for rel in site.doc_files(REPO / "docs")]
    n_images = 0
    for name in pages:
        response = page.goto(base + name, wait_until="load")
        assert response.ok, name
        assert page.evaluate(_BROKEN_IMAGES) == [], name
        n_images += page.evaluate("document.images.length")
    n_pngs = len(list(core_paths.COMMITTED_FIGURES.glob("*.png")))
    assert n_images >= n_pngs > 0

    page.goto(base + "claims.html", wait_until="load")
    rows = page.locator("#ledger tbody tr")
    assert rows.count() == len(_ledger_rows(core_paths.COMMITTED_LEDGER))
    headers = page.locator("#ledger thead th")
    col = [headers.nth(i).inner_text().strip() for i in range(headers.count())].index("trials")
    values = lambda: [int(v) if v else -1 for v in page.eval_on_selector_all(   # "" sorts first
        "#ledger tbody tr", f"rs => rs.map(r => r.cells[{col}].textContent.trim())")]
    headers.nth(col).click()
    assert values() == sorted(values()) and headers.nth(col).get_attribute("aria-sort") == "ascending"
    headers.nth(col).click()
    assert values() == sorted(values(), reverse=True)
    assert rows.count() == len(_ledger_rows(core_paths.COMMITTED_LEDGER))
    assert foreign == []
    page.close()


@BUILDS_THE_SITE
def test_in_chromium_the_ledger_fits_a_1400_px_window(browser, served):
    """Issue 45: the claims table overflowed a 1400 px window (long values in cells that could not wrap)."""
    base, _ = served
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(base + "claims.html", wait_until="load")
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.getElementById('ledger').getBoundingClientRect().right") <= width
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()
