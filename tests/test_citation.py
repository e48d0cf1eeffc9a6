"""LICENSE and CITATION.cff: the licence is BSD-3-Clause everywhere it is named, and CITATION.cff is valid
Citation File Format 1.2.0 (the format's own JSON schema, tests/data/citation-cff-1.2.0.schema.json, as
cffconvert 2.0.0 ships it; cffconvert itself needs jsonschema < 4, which Jupyter's tools cannot use), with
the papers of the README's table (one per registered paper) as references (titles and DOIs)."""
import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def citation() -> dict:
    # YAML would read a date-like or numeric value as a non-string; the schema then rejects it, as cffconvert does
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_cff_is_valid_against_the_formats_schema(citation):
    schema = json.loads((ROOT / "tests" / "data" / "citation-cff-1.2.0.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(citation), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_the_schema_check_can_fail(citation):
    schema = json.loads((ROOT / "tests" / "data" / "citation-cff-1.2.0.schema.json").read_text(encoding="utf-8"))
    broken = {**citation, "references": [{**citation["references"][0], "doi": "not a doi"}]}
    del broken["authors"]
    messages = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(broken)]
    assert any("'authors' is a required property" in m for m in messages)
    assert any("does not match" in m for m in messages)          # the DOI pattern


def test_references_are_the_papers_of_the_readme(citation):
    from simlib.papers.registry import PAPERS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d{3}) \| .*?\*(.+?)\*.*$", readme, re.M)
    assert [seed for seed, _ in rows] == [p.id for p in PAPERS]     # one row per registered paper, in order
    assert [r["title"] for r in citation["references"]] == [title for _, title in rows]
    dois = set(re.findall(r"DOI \[(10\.[^\]]+)\]", readme))
    assert len(dois) == len(rows)
    cited = {r["doi"] for r in citation["references"] if "doi" in r}
    cited |= {d for r in citation["references"] for d in re.findall(r"DOI (10\.\d+/[\w.]*\d)", r.get("notes", ""))}
    assert cited == dois


def test_license_is_bsd_3_clause_in_the_file_the_citation_and_the_package_metadata(citation):
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License") and "Neither the name of the copyright holder" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert citation["license"] == project["license"] == "BSD-3-Clause"
    assert citation["version"] == project["version"]
