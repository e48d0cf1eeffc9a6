"""A static website of the executed notebooks (``make site``; decision W1).

``python -m simlib.pipeline.site --out build/site`` reads the committed executed
notebooks ``notebooks/*.ipynb`` (it never runs them), the claims ledger
``data/results/claims.csv`` and the figures ``figures/*.png`` and writes a
self-contained static site (no CDN, no network at build or view time)::

    index.html                 what the project is; one link per notebook, grouped by paper
    notebooks/<NN_topic>.html  one page per notebook: markdown, code, outputs; under every
                               figure its provenance (notebook, parameters, profile, trials, commit)
    notebooks/<NN_topic>_files/  the notebook's figures as PNG files
    claims.html                the ledger as a table sorted by clicking a header; each row links to
                               the notebook page (and the cell) that recorded it
    figures.html, figures/     every committed figure (PNG, PDF) with its provenance
    settings.html              per paper, the settings it leaves open and the decision that chose each
                               (:func:`simlib.papers.registry.chosen_settings`; decision S20), under the
                               text of ``docs/settings.md``
    summary.html               the reproduction summaries of ``docs/summaries.md`` with each paper's claims
    docs/index.html, docs/<path>.html  every other ``docs/**/*.md`` page, rendered (decision W4)
    site.css, sort.js

Rendering is nbconvert's HTML exporter (``basic`` template: the page body only,
so no script or stylesheet is fetched from the internet) plus this module.
A ledger row's notebook is its ``notebook`` column; where that is empty (a row
recorded outside a notebook run) it is found from the notebook output that
printed the row ("claim recorded: <figure>: <claim>: ..."), which also gives the
cell (see :func:`link_rows`).  The commit is ``git rev-parse HEAD`` of the repository at
build time.
"""
from __future__ import annotations

import argparse
import ast
import html
import json
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from simlib.core import paths as core_paths
from simlib.pipeline.claims import load_ledger, reproduction_table, settings_table

__all__ = ["groups", "MARKER", "DOC_PAGES", "NotebookInfo", "RowLink", "read_notebooks", "link_rows", "doc_files",
           "doc_href", "build_site", "main"]


def literal_assignments(source: str) -> dict:
    """``name = <value>`` assignments of a cell (a parameters cell): literals as values, any other
    expression as its source text; ``{}`` for a cell that does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                out[node.targets[0].id] = ast.unparse(node.value)
    return out


def groups() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """Notebook groups on the index page: (key, heading, first digits of the notebook numbers), one per
    paper, then "beyond" (:func:`simlib.papers.registry.notebook_groups`, from each paper's notebooks)."""
    from simlib.papers.registry import notebook_groups

    return notebook_groups()


#: File that marks a folder as a site written by this module; --out may replace only such a folder.
MARKER = ".simlib-site"
_NOTEBOOK_RE = re.compile(r"\d\d_[A-Za-z0-9_.-]+")
_SAVE_RE = re.compile(r"save_figure\(\s*\w+\s*,\s*(f?)(['\"])(.+?)\2")
_HEADING_RE = re.compile(r"^#\s+(.+)$", re.M)


def group_of(stem: str) -> str:
    """The :func:`groups` key of notebook ``stem`` ("11_sr_fig5-7_traces" -> "000")."""
    for key, _, digits in groups():
        if stem[0] in digits:
            return key
    raise ValueError(f"notebook {stem!r} has a number outside every group of groups() (list it in its paper's "
                     "Paper.notebooks or in registry.BEYOND_NOTEBOOKS)")


@dataclass
class NotebookInfo:
    """What the site needs to know about one executed notebook."""
    stem: str
    title: str
    group: str
    nb: object                       # the nbformat NotebookNode
    parameters: dict                 # literal assignments of the `parameters` cell
    executed: bool                   # any cell has outputs
    texts: dict = field(default_factory=dict)      # cell id -> text of its plain-text outputs
    figure_patterns: tuple = ()      # regexes of the figure names its save_figure calls write
    committed_in: str = ""           # short hash of the last commit that changed the .ipynb


def _output_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif "text/plain" in out.get("data", {}):
            parts.append(out["data"]["text/plain"])
    return "\n".join(parts)


def _figure_patterns(source: str) -> tuple:
    """Regexes for the names ``save_figure(fig, "name")`` / ``f"sr_fig{no:02d}_{x}"`` write."""
    patterns = []
    for is_f, _, name in _SAVE_RE.findall(source):
        pieces = re.split(r"\{[^}]*\}", name) if is_f else [name]
        patterns.append(re.compile("[A-Za-z0-9._-]+".join(re.escape(p) for p in pieces)))
    return tuple(patterns)


def _git(repo: Path, *args: str) -> str:
    try:
        out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def read_notebooks(notebooks_dir: Path, repo: Path | None = None) -> list[NotebookInfo]:
    """Every ``NN_topic.ipynb`` of ``notebooks_dir``, sorted by name (``repo``: git checkout for
    each notebook's last commit)."""
    import nbformat

    infos = []
    for path in sorted(Path(notebooks_dir).glob("*.ipynb")):
        if not _NOTEBOOK_RE.fullmatch(path.stem):
            continue
        nb = nbformat.read(str(path), as_version=4)
        title = next((m.group(1).strip() for c in nb.cells if c.cell_type == "markdown"
                      for m in [_HEADING_RE.search(c.source)] if m), path.stem)
        params = next((literal_assignments(c.source) for c in nb.cells if c.cell_type == "code"
                       and "parameters" in c.get("metadata", {}).get("tags", [])), {})
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        infos.append(NotebookInfo(
            stem=path.stem, title=title, group=group_of(path.stem), nb=nb, parameters=params,
            executed=any(c.get("outputs") for c in nb.cells if c.cell_type == "code"),
            texts={c.get("id", ""): _output_text(c) for c in nb.cells if c.cell_type == "code"},
            figure_patterns=_figure_patterns(code),
            committed_in=_git(repo, "log", "-1", "--format=%h", "--", str(path)) if repo else ""))
    return infos


@dataclass(frozen=True)
class RowLink:
    """Where a ledger row was recorded: ``notebook`` stem (or None), ``cell`` id (or None) and
    ``how``: "ledger" (its notebook column), "output" (the cell that printed it) or "none"."""
    notebook: str | None
    cell: str | None
    how: str


def _recorded_cell(row, infos) -> tuple[str, str] | None:
    needle = f"recorded: {row['figure']}: {row['claim']}: "
    hits = [(i.stem, cid) for i in infos for cid, text in i.texts.items() if needle in text]
    return hits[0] if len(hits) == 1 else None


_RECORD_CALL_RE = re.compile(r"\b(?:claims|run)\.record\(")


def _recording_cell(info: NotebookInfo) -> str | None:
    """The id of the notebook's only code cell that calls ``run.record(`` or ``claims.record(`` (a cell
    recording a list of claims shows a table, not one printed line per row), else None."""
    ids = [c.get("id") for c in info.nb.cells if c.cell_type == "code" and _RECORD_CALL_RE.search(c.source)]
    return ids[0] if len(ids) == 1 else None


def link_rows(ledger: pd.DataFrame, infos: list[NotebookInfo]) -> list[RowLink]:
    """One :class:`RowLink` per ledger row, in order: the ``notebook`` column if it names a known
    notebook (the cell that printed the row, else its only recording cell), else the notebook whose
    output printed the row, else none."""
    known = {i.stem: i for i in infos}
    links = []
    for _, row in ledger.iterrows():
        stem = row.get("notebook", "") or ""
        if stem in known:
            hit = _recorded_cell(row, [known[stem]])
            links.append(RowLink(stem, hit[1] if hit else _recording_cell(known[stem]), "ledger"))
            continue
        hit = _recorded_cell(row, infos)
        links.append(RowLink(hit[0], hit[1], "output") if hit else RowLink(None, None, "none"))
    return links


# --- provenance ---------------------------------------------------------------------------------

def _run_facts(info: NotebookInfo, ledger: pd.DataFrame, links: list[RowLink]) -> dict:
    """profile and trials of a notebook's run: from its ledger rows (recorded by the run) when they
    agree, else from its parameters cell."""
    rows = ledger[[lk.notebook == info.stem for lk in links]]
    facts = {}
    for key in ("profile", "trials"):
        values = set(rows[key]) - {""} if len(rows) else set()
        if len(values) == 1:
            facts[key] = values.pop()
        elif key in info.parameters:
            facts[key] = str(info.parameters[key])
        else:
            facts[key] = "not recorded"
    return facts


def _provenance_html(info: NotebookInfo, facts: dict, commit: str, label: str, page_href: str) -> str:
    """The provenance line under a figure; ``page_href`` links to the notebook's page."""
    params = ", ".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in info.parameters.items()
                       if k not in ("profile", "trials", "workers"))
    committed = f"; outputs committed in {info.committed_in}" if info.committed_in else ""
    return (f'<p class="provenance">{html.escape(label)} · notebook '
            f'<a href="{page_href}">{info.stem}</a>'
            f' · profile {html.escape(facts["profile"])} · trials {html.escape(facts["trials"])}'
            f' · parameters: {html.escape(params or "none")} (the notebook\'s defaults)'
            f' · built from commit {html.escape(commit)}{html.escape(committed)}</p>')


def _page(stem: str) -> str:
    """A notebook page's address relative to the site's root."""
    return f"notebooks/{stem}.html"


# --- pages --------------------------------------------------------------------------------------

_CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0; color: #222; line-height: 1.45; }
header, main, footer { max-width: 1100px; margin: 0 auto; padding: 0 1.2em; }
header { border-bottom: 1px solid #ddd; padding-top: .6em; padding-bottom: .6em; }
header a { margin-right: 1.2em; }
footer { color: #666; font-size: .85em; border-top: 1px solid #ddd; margin-top: 2em; padding-top: .6em; }
a { color: #0b62a4; }
img { max-width: 100%; height: auto; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; font-size: .85em; }
.input_prompt, .output_prompt { display: none; }
.output_area pre, .output_text pre { background: #fff; border-left: 3px solid #ddd; white-space: pre-wrap; }
.cell:target { outline: 3px solid #f0b400; }
.provenance { font-size: .8em; color: #555; background: #f4f4f4; padding: .4em .6em; margin-top: 0; }
body.wide header, body.wide main, body.wide footer { max-width: none; }
table { border-collapse: collapse; font-size: .85em; }
td.nb { overflow-wrap: anywhere; min-width: 9em; } td.note { font-size: .9em; color: #444; min-width: 16em; }
th, td { border: 1px solid #ddd; padding: .25em .45em; vertical-align: top; }
table.ledger { width: 100%; }
table.ledger td { overflow-wrap: anywhere; }
table.ledger th { cursor: pointer; background: #f0f0f0; position: sticky; top: 0; }
table.ledger th[aria-sort="ascending"]::after { content: " ▲"; }
table.ledger th[aria-sort="descending"]::after { content: " ▼"; }
.fails { color: #b00020; } .holds { color: #1b7f3b; } .undecided { color: #8a6d00; }
figure { margin: 1.5em 0; } figcaption { font-size: .85em; }
"""

def _css() -> str:
    """The site's stylesheet: :data:`_CSS` plus Pygments' colours for the code cells."""
    from pygments.formatters import HtmlFormatter

    return _CSS + HtmlFormatter(style="default").get_style_defs(".highlight")


# Sort a table by the clicked header: numbers numerically, text naturally; a second click reverses.
_SORT_JS = """
document.querySelectorAll("table.ledger").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var asc = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].textContent.trim(), y = b.cells[col].textContent.trim();
        var c = x.localeCompare(y, undefined, {numeric: true, sensitivity: "base"});
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def _html_page(title: str, body: str, commit: str, depth: int = 0, extra_head: str = "", wide: bool = False) -> str:
    up = "../" * depth
    cls = ' class="wide"' if wide else ""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{html.escape(title)}</title><link rel="stylesheet" href="{up}site.css">{extra_head}</head>\n'
            f'<body{cls}><header><a href="{up}index.html">Index</a><a href="{up}claims.html">Claims ledger</a>'
            f'<a href="{up}figures.html">Figures</a><a href="{up}settings.html">Settings</a>'
            f'<a href="{up}docs/index.html">Documentation</a></header>\n'
            f'<main>\n{body}\n</main>\n'
            f'<footer>Built from commit {html.escape(commit)} by <code>make site</code> '
            f'(simlib.pipeline.site) from the committed executed notebooks; nothing was re-run.</footer>'
            f'</body></html>\n')


def _notebook_page(info: NotebookInfo, facts: dict, commit: str, n_rows: int) -> tuple[str, dict]:
    """The page body of one notebook and its extracted figures ({relative path: bytes})."""
    import copy

    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import ExtractOutputPreprocessor

    nb = copy.deepcopy(info.nb)
    k = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.get("outputs", []):
            outputs.append(out)
            if any(m.startswith("image/") for m in out.get("data", {})):
                k += 1
                prov = _provenance_html(info, facts, commit, f"Figure {k}", f"#figure-{k}")
                outputs.append(nbformat.v4.new_output(
                    "display_data", data={"text/html": f'<div id="figure-{k}">{prov}</div>'}))
        cell.outputs = outputs
    exporter = HTMLExporter(template_name="basic")
    exporter.register_preprocessor(ExtractOutputPreprocessor(output_filename_template="output_{cell_index}_{index}{extension}"),
                                   enabled=True)
    body, resources = exporter.from_notebook_node(nb, resources={"output_files_dir": f"{info.stem}_files"})
    note = "" if info.executed else ('<p class="provenance">This notebook has not been executed in the '
                                     'committed results yet (no outputs): its code is shown as written.</p>')
    rows = (f'<p>{n_rows} row{"s" if n_rows != 1 else ""} of the <a href="../claims.html">claims ledger</a> '
            f'come from this notebook.</p>' if n_rows else "")
    head = (f'<p class="provenance">{html.escape(info.stem)}.ipynb · group {html.escape(info.group)} · '
            f'profile {html.escape(facts["profile"])} · trials {html.escape(facts["trials"])} · '
            f'built from commit {html.escape(commit)}</p>')
    return head + note + rows + body, resources.get("outputs", {})


def _index_body(infos, ledger, commit) -> str:
    from simlib.papers.registry import PAPERS

    titles = {p.id: p.title for p in PAPERS}
    parts = ["<h1>Partial model synchronization: four papers, rebuilt and run</h1>",
             "<p>This site shows the executed notebooks of the <code>simlib</code> repository, which "
             "rebuilds four papers on partial model synchronization for heterogeneous data-parallel "
             "training (Selective Reduce, Partial Reduce, FMReduce, SelMcast) on one flow-level "
             "discrete-event simulator, reruns their evaluations and checks their claims. Each page is a "
             "notebook as committed (full profile, the papers' settings), with its figures and the claims "
             "it records; under every figure: the parameters, profile and trials that produced it.</p>"]
    n_claims = int((ledger["kind"] == "claim").sum()) if len(ledger) else 0
    n_hold = int(ledger.loc[ledger["kind"] == "claim", "holds"].fillna(False).astype(bool).sum()) if n_claims else 0
    parts.append(f'<p><a href="claims.html">The claims ledger</a>: {len(ledger)} rows, {n_claims} paper '
                 f'claims checked ({n_hold} hold), {len(ledger) - n_claims} observations. '
                 f'<a href="figures.html">Every figure</a> with its provenance. '
                 f'<a href="summary.html">Reproduction summaries</a>: per paper, what holds at our defaults '
                 f'and at the paper profile, what was easy and hard. '
                 f'<a href="settings.html">The settings the papers leave open</a> and the decision that chose '
                 f'each. <a href="docs/index.html">The documentation</a>: results, speed, the simulation core, '
                 f'the learning task, data, the layout and every design decision.</p>')
    for key, heading, _ in groups():
        members = [i for i in infos if i.group == key]
        if not members:
            continue
        sub = f" — <em>{html.escape(titles[key])}</em>" if key in titles else ""
        parts.append(f'<h2 id="group-{key}">{html.escape(heading)}{sub}</h2><ul>')
        for i in members:
            flag = "" if i.executed else " (not executed yet)"
            parts.append(f'<li><a href="{_page(i.stem)}">{html.escape(i.stem)}</a>: '
                         f'{html.escape(i.title)}{flag}</li>')
        parts.append("</ul>")
    return "\n".join(parts)


def _settings_body(doc: str = "") -> str:
    """Per paper, the settings it leaves open: parameter, default, decision, meaning, declared in (the
    tables of ``docs/settings.md``, from the same declarations), under that page's text (``doc``, its
    Markdown; the generated block left out, as the tables below are built here)."""
    from simlib.papers.registry import PAPERS, chosen_settings

    prose = doc.split(SETTINGS_BLOCK, 1)[0]
    parts = [_render_doc(prose, "settings.md") if prose.strip() else
             "<h1>Settings the papers leave open</h1>"
             "<p>Every scenario parameter says whether the paper states its default or this repository chose "
             "it (decision S20). These are the chosen ones, per paper, with the decision entry of "
             "<code>docs/decisions/</code> that says why: the numbers of a run that are ours, not the "
             "paper's.</p>"]
    for p in PAPERS:
        parts.append(f'<h2 id="paper-{p.id}">{html.escape(p.id)} — <em>{html.escape(p.title)}</em></h2>'
                     "<table><thead><tr><th>parameter</th><th>default</th><th>decision</th><th>meaning</th>"
                     "<th>declared in</th></tr></thead><tbody>")
        for c in chosen_settings(p.id):
            parts.append(f"<tr><td><code>{html.escape(c.parameter)}</code></td>"
                         f"<td>{html.escape(c.default_text())}</td><td>{html.escape(c.decision)}</td><td>{html.escape(c.help)}</td>"
                         f"<td>{html.escape(c.declared_in)}</td></tr>")
        parts.append("</tbody></table>")
    return "\n".join(parts)


_LEDGER_COLUMNS = (("paper", "paper"), ("figure", "figure"), ("claim", "claim"), ("setting", "setting"),
                   ("paper_value", "paper value"),
                   ("our_value", "our value"), ("kind", "kind"), ("verdict", "verdict"),
                   ("strength", "pairs, sides, interval"), ("fitted", "fitted by"), ("note", "cause or note"),
                   ("profile", "profile"), ("trials", "trials"), ("notebook", "notebook"))


def _verdict(row) -> str:
    """"holds", "fails (direction, magnitude)" (the verdicts that fail), "undecided (magnitude)" (the
    verdicts whose interval straddles the threshold, S24) or "" for an observation; a fitted row (a
    calibration target) gives its verdict all the same (the "fitted by" column marks it)."""
    if row["kind"] == "observation":
        return ""
    if pd.isna(row["holds"]):
        return f"undecided ({row['undecided'].replace(',', ', ')})"
    failed = [v for v in ("direction", "magnitude") if not pd.isna(row[v]) and not row[v]]
    return "holds" if row["holds"] else f"fails ({', '.join(failed)})"


def _strength(row) -> str:
    """A comparative row's strength (S24): its pairs, the pairs on each side, the interval; "" otherwise."""
    parts = [f"{row['pairs']} pairs" if row["pairs"] else "", row["sides"], row["interval"] and f"interval {row['interval']}"]
    return "; ".join(p for p in parts if p)


def _ledger_body(ledger, links) -> str:
    head = "".join(f'<th scope="col">{html.escape(label)}</th>' for _, label in _LEDGER_COLUMNS)
    body = []
    for (_, row), link in zip(ledger.iterrows(), links):
        cells = []
        for col, _ in _LEDGER_COLUMNS:
            if col == "verdict":
                v = _verdict(row)
                cells.append(f'<td class="{v.split(" ")[0]}">{html.escape(v)}</td>')
            elif col == "strength":
                cells.append(f"<td>{html.escape(_strength(row))}</td>")
            elif col == "notebook":
                if link.notebook is None:
                    cells.append("<td>not known</td>")
                else:
                    href = _page(link.notebook) + (f"#cell-id={link.cell}" if link.cell else "")
                    cells.append(f'<td class="nb"><a href="{href}">{html.escape(link.notebook)}</a></td>')
            elif col == "note":
                text = " ".join(t for t in (row["cause"] and f"cause: {row['cause']}.", row["note"]) if t)
                cells.append(f'<td class="note">{html.escape(text)}</td>')
            else:
                cells.append(f"<td>{html.escape(str(row[col]))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    n_cell = sum(1 for lk in links if lk.cell)
    n_none = sum(1 for lk in links if lk.notebook is None)
    n_page = len(links) - n_cell - n_none
    return (f"<h1>Claims ledger</h1><p><code>data/results/claims.csv</code>: {len(ledger)} rows. "
            "Click a column header to sort by it (again to reverse). A <em>claim</em> is a statement of "
            "the paper we check; an <em>observation</em> is what we measured where the paper is silent. "
            "A claim's verdict fails when its direction or its magnitude (where the paper gives a number) fails; "
            "it is undecided when the confidence interval of a compared median straddles the claim's threshold "
            "(decision S24), and a row whose quantity a calibration fitted names that rule under fitted by "
            "(shown, not counted as a hold). "
            f"The last column links to the notebook that recorded the row: {n_cell} to the very cell; "
            f"{n_page} to the notebook's page (no single cell of it prints or records the row); "
            f"{n_none} unknown (recorded outside a notebook run, and no notebook's output prints it).</p>"
            f'<table class="ledger" id="ledger"><thead><tr>{head}</tr></thead><tbody>\n'
            + "\n".join(body) + "\n</tbody></table>")


# --- the documentation pages (docs/**/*.md; decision W4) -----------------------------------------

#: Pages of ``docs/`` whose text feeds a site page of its own; every other ``docs/<path>.md`` is
#: rendered as ``docs/<path>.html``.
DOC_PAGES = {"summaries.md": "summary.html", "settings.md": "settings.html"}
#: ``docs/settings.md``'s generated block (the tables the settings page builds from the declarations).
SETTINGS_BLOCK = "<!-- chosen-settings:start -->"
_MD_LINK_RE = re.compile(r'href="([^":#?]+\.md)(#[^"]*)?"')


def doc_files(docs_dir) -> list[str]:
    """The Markdown pages under ``docs_dir``, as POSIX paths relative to it, sorted; [] if it is absent."""
    docs_dir = Path(docs_dir)
    return sorted(p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*.md")) if docs_dir.is_dir() else []


def doc_href(rel: str) -> str:
    """The site address (from the site's root) of the page ``docs/<rel>`` (``rel`` relative to ``docs/``)."""
    return DOC_PAGES.get(rel, "docs/" + rel[:-3] + ".html")


def _doc_title(text: str, rel: str) -> str:
    """A page's first ``# `` heading (Markdown emphasis and code marks dropped), else its file name."""
    match = _HEADING_RE.search(text)
    return re.sub(r"[*`]", "", match.group(1)).strip() if match else rel


def _markdown2html(text: str) -> str:
    """nbconvert's Markdown to HTML (as for a notebook's markdown cells) plus tables inside list items,
    as GitHub renders them (mistune's ``table_in_list``; the docs pages indent tables under list items)."""
    from mistune import import_plugin
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    plugins = MarkdownWithMath.DEFAULT_PLUGINS + ("mistune.plugins.table.table_in_list",)
    return MarkdownWithMath(renderer=IPythonRenderer(escape=False),
                            plugins=[import_plugin(p) for p in plugins]).render(text)


def _render_doc(text: str, rel: str) -> str:
    """``docs/<rel>``'s Markdown as HTML for its site page: a link to another page of ``docs/`` (or to
    the README, whose place the site's index takes) points at that page on the site, relative to this one."""
    here = posixpath.dirname(doc_href(rel))

    def link(m):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), m.group(1)))
        site = "index.html" if target == "../README.md" else None if target.startswith("../") else doc_href(target)
        if site is None:
            return m.group(0)
        return f'href="{posixpath.relpath(site, here or ".")}{m.group(2) or ""}"'

    return _MD_LINK_RE.sub(link, _markdown2html(text))


def _docs_index_body(pages: list[tuple[str, str]]) -> str:
    """The documentation's index (``docs/index.html``): one link per page of ``docs/``, (rel, title) each."""
    items = "".join(f'<li><a href="{posixpath.relpath(doc_href(rel), "docs")}">{html.escape(title)}</a> '
                    f"<code>docs/{html.escape(rel)}</code></li>" for rel, title in pages)
    return ("<h1>Documentation</h1><p>Every page of the repository's <code>docs/</code> folder (the README "
            "links them), rendered; the reproduction summaries and the settings are pages of their own.</p>"
            f"<ul>{items}</ul>")


#: ``docs/summaries.md``: its "## <paper id> ..." sections are the reproduction summaries.
SUMMARY_DOC = "summaries.md"


def doc_summaries(text: str) -> tuple[str, dict[str, str]]:
    """``docs/summaries.md`` split: its text before the first ``## `` section, and ``{paper id:
    Markdown}``, one per ``## <id> ...`` section (the heading line left out)."""
    parts = re.split(r"^## ", text, flags=re.M)
    out = {}
    for part in parts[1:]:
        heading, _, body = part.partition("\n")
        out[heading.split()[0]] = body.strip()
    return parts[0], out


def _summary_body(ledger, doc: str) -> str:
    """The reproduction summaries: per paper, the text of ``docs/summaries.md`` (``doc``), the counts
    and every claim's status."""
    from simlib.papers.registry import PAPERS

    intro, text = doc_summaries(doc)
    counts = settings_table(ledger).set_index("paper") if len(ledger) else None
    ledger_link = 'Every row is in the <a href="claims.html">claims ledger</a> with its measured values and cause.'
    parts = [_render_doc(intro, SUMMARY_DOC) + f"<p>{ledger_link}</p>" if intro.strip() else
             "<h1>Reproduction summaries</h1><p>Per paper, as a replication report: the claims checked, "
             "where each holds (at this repository's defaults, at the paper profile — the settings the paper "
             "leaves open, calibrated by a rule written first — or at another reading), which fail as a likely "
             f"error of the paper's own model, and which stay unexplained. {ledger_link}</p>"]
    for paper in PAPERS:
        parts.append(f'<h2 id="paper-{paper.id}">{html.escape(paper.id)} — <em>{html.escape(paper.title)}</em></h2>')
        if paper.id in text:
            parts.append(_render_doc(text[paper.id], SUMMARY_DOC))
        if counts is not None and paper.id in counts.index:
            c = counts.loc[paper.id]
            parts.append(f"<p>{c.claims} claims: {c.at_default} hold at the default, "
                         f"{c.at_profile} of {c.judged_at_profile} at the profile, {c.elsewhere_only} only at a "
                         f"setting other than the default, {c.neither} at none ({c.likely_paper_error} likely "
                         f"paper error, {c.unexplained} unexplained).</p>")
            parts.append(reproduction_table(ledger, paper.id).to_html(index=False, classes="ledger", border=0,
                                                                       escape=True))
    return "\n".join(parts)


def _figures_body(figures_dir: Path, infos, facts, commit) -> tuple[str, list[Path]]:
    pngs = sorted(Path(figures_dir).glob("*.png"))
    owner = {}
    for png in pngs:
        hits = [i for i in infos if any(p.fullmatch(png.stem) for p in i.figure_patterns)]
        owner[png] = hits[0] if len(hits) == 1 else None
    parts = [f"<h1>Figures</h1><p>The {len(pngs)} committed figures of <code>figures/</code> "
             "(PNG shown, PDF linked), in notebook order.</p>"]
    order = sorted(pngs, key=lambda p: (owner[p].stem if owner[p] else "~", p.name))
    for png in order:
        info = owner[png]
        pdf = png.with_suffix(".pdf")
        link = f' · <a href="figures/{pdf.name}">PDF</a>' if pdf.exists() else ""
        prov = (_provenance_html(info, facts[info.stem], commit, f"figures/{png.name}", _page(info.stem)) if info else
                f'<p class="provenance">figures/{html.escape(png.name)} · notebook not known · '
                f'built from commit {html.escape(commit)}</p>')
        parts.append(f'<figure id="{html.escape(png.stem)}"><img src="figures/{png.name}" alt="{png.stem}">'
                     f"<figcaption><code>{png.name}</code>{link}{prov}</figcaption></figure>")
    copied = [p for png in pngs for p in (png, png.with_suffix(".pdf")) if p.exists()]
    return "\n".join(parts), copied


# --- the build ----------------------------------------------------------------------------------

def check_out(out) -> Path:
    """``out`` as a Path, or ValueError: it must be a new or empty folder, or one this module wrote
    (holding :data:`MARKER`), and must not contain the repository."""
    if not isinstance(out, (str, Path)) or str(out) == "":
        raise ValueError(f"--out must be a folder path, got {out!r}")
    out = Path(out)
    resolved = out.resolve()
    if resolved == core_paths.REPO_ROOT or resolved in core_paths.REPO_ROOT.parents:
        raise ValueError(f"--out must not be the repository or a folder containing it, got {str(out)!r}")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise ValueError(f"--out {str(out)!r} is a non-empty folder that `make site` did not write "
                         f"(no {MARKER} file); choose a new or empty folder")
    return out


def build_site(out, notebooks_dir=None, ledger_path=None, figures_dir=None, repo=None) -> dict:
    """Write the site into ``out`` (replacing a site built there before); return counts.

    ``notebooks_dir``, ``ledger_path``, ``figures_dir`` default to the committed
    ``notebooks/``, ``data/results/claims.csv`` and ``figures/``; ``repo`` (default: the
    repository) is the git checkout whose HEAD is the commit named on every page.
    Returns ``{"notebooks": N, "figures": inline figures, "ledger_rows": rows, "commit": hash}``.
    """
    out = check_out(out)
    root = core_paths.REPO_ROOT
    notebooks_dir = Path(notebooks_dir or root / "notebooks")
    figures_dir = Path(figures_dir or core_paths.COMMITTED_FIGURES)
    ledger_path = Path(ledger_path or core_paths.COMMITTED_LEDGER)
    repo = Path(repo or root)
    for name, p in (("notebooks_dir", notebooks_dir), ("figures_dir", figures_dir)):
        if not p.is_dir():
            raise ValueError(f"{name} must be an existing folder, got {str(p)!r}")
    commit = _git(repo, "rev-parse", "--short=12", "HEAD")
    if not commit:
        commit = "unknown (not a git checkout)"
    elif _git(repo, "status", "--porcelain", "--", "notebooks", "figures", "data/results"):
        commit += " (with uncommitted changes to the results)"

    infos = read_notebooks(notebooks_dir, repo)
    if not infos:
        raise ValueError(f"notebooks_dir {str(notebooks_dir)!r} holds no NN_topic.ipynb notebook")
    ledger = load_ledger(ledger_path).reset_index(drop=True)
    links = link_rows(ledger, infos)
    facts = {i.stem: _run_facts(i, ledger, links) for i in infos}

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        (tmp / MARKER).write_text("written by python -m simlib.pipeline.site\n", encoding="utf-8")
        (tmp / "site.css").write_text(_css(), encoding="utf-8")
        (tmp / "sort.js").write_text(_SORT_JS, encoding="utf-8")
        nb_dir = tmp / "notebooks"
        nb_dir.mkdir()
        n_figs = 0
        for info in infos:
            n_rows = sum(1 for lk in links if lk.notebook == info.stem)
            body, files = _notebook_page(info, facts[info.stem], commit, n_rows)
            for rel, data in files.items():
                (nb_dir / rel).parent.mkdir(parents=True, exist_ok=True)
                (nb_dir / rel).write_bytes(data)
                n_figs += rel.endswith(".png")
            (nb_dir / f"{info.stem}.html").write_text(
                _html_page(f"{info.stem}: {info.title}", body, commit, depth=1), encoding="utf-8")
        (tmp / "index.html").write_text(_html_page("simlib: executed notebooks", _index_body(infos, ledger, commit),
                                                   commit), encoding="utf-8")
        (tmp / "claims.html").write_text(
            _html_page("Claims ledger", _ledger_body(ledger, links), commit,
                       extra_head='<script src="sort.js" defer></script>', wide=True), encoding="utf-8")
        docs_dir = repo / "docs"
        docs = {rel: (docs_dir / rel).read_text(encoding="utf-8") for rel in doc_files(docs_dir)}
        (tmp / "summary.html").write_text(
            _html_page("Reproduction summaries", _summary_body(ledger, docs.get(SUMMARY_DOC, "")), commit,
                       wide=True), encoding="utf-8")
        body, copied = _figures_body(figures_dir, infos, facts, commit)
        (tmp / "figures").mkdir()
        for p in copied:
            shutil.copy2(p, tmp / "figures" / p.name)
        (tmp / "figures.html").write_text(_html_page("Figures", body, commit), encoding="utf-8")
        (tmp / "settings.html").write_text(
            _html_page("Settings the papers leave open", _settings_body(docs.get("settings.md", "")), commit),
            encoding="utf-8")
        titles = []
        for rel, text in docs.items():
            titles.append((rel, _doc_title(text, rel)))
            if rel in DOC_PAGES:
                continue
            page = tmp / doc_href(rel)
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(_html_page(titles[-1][1], _render_doc(text, rel), commit, depth=rel.count("/") + 1),
                            encoding="utf-8")
        (tmp / "docs").mkdir(exist_ok=True)
        (tmp / "docs" / "index.html").write_text(_html_page("Documentation", _docs_index_body(titles), commit, depth=1),
                                                 encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return {"notebooks": len(infos), "figures": n_figs, "ledger_rows": len(ledger), "commit": commit}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m simlib.pipeline.site",
                                 description="Build the static website of the committed executed notebooks "
                                             "(nothing is re-run).")
    ap.add_argument("--out", default=str(core_paths.REPO_ROOT / "build" / "site"),
                    help="folder to write (new, empty, or a site written before; default build/site)")
    return ap


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        out = check_out(args.out)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    counts = build_site(out)
    print(f"site: {counts['notebooks']} notebooks, {counts['figures']} figures, {counts['ledger_rows']} ledger rows "
          f"in {time.perf_counter() - start:.1f} s -> {out / 'index.html'} (commit {counts['commit']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
