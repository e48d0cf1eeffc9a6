"""Where simlib writes (decision S15): inside a checkout, or -- installed -- under $SIMLIB_HOME or the
user's cache/data folders, never under the package folder."""
from pathlib import Path

import pytest

from simlib import cli
from simlib.core import paths

ROOT = Path(__file__).resolve().parents[2]


def test_this_tree_is_a_checkout_and_a_bare_package_folder_is_not(tmp_path):
    assert paths.is_checkout() and paths.is_checkout(ROOT / "simlib")
    (tmp_path / "site-packages" / "simlib").mkdir(parents=True)
    assert not paths.is_checkout(tmp_path / "site-packages" / "simlib")
    (tmp_path / "site-packages" / "pyproject.toml").write_text("")
    assert not paths.is_checkout(tmp_path / "site-packages" / "simlib")      # notebooks/ missing too
    (tmp_path / "site-packages" / "notebooks").mkdir()
    assert paths.is_checkout(tmp_path / "site-packages" / "simlib")


def test_a_checkout_writes_inside_it():
    loc = paths.locations(checkout=True, environ={}, repo_root=ROOT)
    assert (loc.cache, loc.runs, loc.build_cache) == (ROOT / "data" / "cache", ROOT / "build" / "runs",
                                                      ROOT / "build" / "cache")
    assert loc.numba_cache is None and loc.source == "checkout"


def _under(path: Path, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(Path(folder).resolve())


def test_an_installed_package_uses_the_user_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    site = tmp_path / "site-packages"
    loc = paths.locations(checkout=False, environ={}, repo_root=site)
    assert loc.source == "user folders"
    for folder in (loc.cache, loc.build_cache, loc.numba_cache):
        assert _under(folder, tmp_path / "xdg-cache" / "simlib")
    assert _under(loc.runs, tmp_path / "xdg-data" / "simlib")
    assert not any(_under(f, site) for f in (loc.cache, loc.runs, loc.build_cache, loc.numba_cache))
    assert all(Path(f).is_absolute() for f in (loc.cache, loc.runs, loc.build_cache, loc.numba_cache))
    assert not (tmp_path / "xdg-cache").exists()       # choosing creates nothing


@pytest.mark.parametrize("checkout", [False, True])
def test_simlib_home_is_honoured(tmp_path, checkout):
    home = tmp_path / "home"
    loc = paths.locations(checkout=checkout, environ={paths.HOME_ENV: str(home)}, repo_root=tmp_path / "repo")
    assert loc.source == paths.HOME_ENV
    assert (loc.cache, loc.runs, loc.build_cache) == (home / "cache" / "trials", home / "runs", home / "cache" / "data")
    # a checkout keeps numba's cache next to its sources; an installed package moves it too
    assert loc.numba_cache == (None if checkout else home / "cache" / "numba")


def test_installed_package_points_numba_at_the_user_cache(tmp_path, monkeypatch):
    loc = paths.locations(checkout=False, environ={paths.HOME_ENV: str(tmp_path)})
    monkeypatch.setattr(paths, "_LOCATIONS", loc)
    environ = {}
    paths.configure_numba_cache(environ)
    assert environ == {paths.NUMBA_CACHE_ENV: str(tmp_path / "cache" / "numba")}
    environ = {paths.NUMBA_CACHE_ENV: "/elsewhere"}         # the user's own setting wins
    paths.configure_numba_cache(environ)
    assert environ == {paths.NUMBA_CACHE_ENV: "/elsewhere"}
    monkeypatch.setattr(paths, "_LOCATIONS", paths.locations(checkout=True, environ={}))
    environ = {}
    paths.configure_numba_cache(environ)
    assert environ == {}


def test_announce_names_the_folders_once_outside_a_checkout(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(paths, "_LOCATIONS", paths.locations(checkout=False, environ={paths.HOME_ENV: str(tmp_path)}))
    monkeypatch.setattr(paths, "_announced", [])
    paths.announce_locations()
    paths.announce_locations()
    err = capsys.readouterr().err
    assert err.count("[simlib]") == 1 and "SIMLIB_HOME" in err
    monkeypatch.setattr(paths, "_LOCATIONS", paths.locations(checkout=True, environ={}))
    monkeypatch.setattr(paths, "_announced", [])
    paths.announce_locations()
    assert capsys.readouterr().err == ""


def test_claims_in_an_installed_package_says_there_is_no_committed_ledger(tmp_path, monkeypatch, capsys):
    runs = tmp_path / "runs"
    ledger = runs / "my_script" / "defaults" / "results" / "claims.csv"
    ledger.parent.mkdir(parents=True)
    ledger.write_text("paper,figure,claim\n")
    monkeypatch.setattr(paths, "is_checkout", lambda *a: False)
    monkeypatch.setattr(paths, "RUNS", runs)
    monkeypatch.setattr(cli, "DEFAULT_LEDGER", tmp_path / "site-packages" / "data" / "results" / "claims.csv")
    assert cli.main(["claims"]) == 0
    out = capsys.readouterr().out
    assert "no committed claims ledger" in out and str(runs) in out and str(ledger.parents[1]) in out
    assert "no claims recorded yet" not in out
