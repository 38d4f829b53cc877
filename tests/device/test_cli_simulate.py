"""`yamscope simulate` as a user runs it: scores, histogram, PNG plot, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import pytest

if TYPE_CHECKING:
    from conftest import Run


@pytest.fixture(scope="module")
def simulate(run: Run) -> Run:
    """``yamscope simulate --quiet ARGS``."""
    return lambda *args, **how: run("simulate", "--quiet", *args, **{"timeout": 120, **how})


def table_rows(stdout: str) -> dict[str, list[float]]:
    rows = {}
    for line in stdout.splitlines()[2:]:
        parts = line.split()
        if len(parts) == 7 and not line.startswith(" "):
            rows[parts[0]] = [float(x) for x in parts[1:]]
    return rows


@pytest.mark.parametrize("rules", ["impossible", "yams", "yahtzee", "cameroun"])
def test_prints_mean_spread_and_histogram(simulate: Run, rules: str) -> None:
    done = simulate("--rules", rules, "--players", "facile,facile", "--games", "6", "--seed", "3")
    assert done.returncode == 0, done.stderr
    rows = table_rows(done.stdout)
    assert set(rows) == {"facile1", "facile2"}
    for mean, stdev, low, median, high, wins in rows.values():
        assert low <= median <= high and low <= mean <= high and stdev >= 0
        assert 0 <= wins <= 6
    assert sum(r[5] for r in rows.values()) == pytest.approx(6)
    # the histogram counts every game of each player once
    counts = [int(line.split()[3]) for line in done.stdout.splitlines() if "–" in line]
    assert sum(counts) == 12


def test_same_seed_same_games_other_seed_other_games(simulate: Run) -> None:
    a = simulate("--rules", "yams", "--games", "5", "--seed", "1").stdout
    b = simulate("--rules", "yams", "--games", "5", "--seed", "1").stdout
    c = simulate("--rules", "yams", "--games", "5", "--seed", "2").stdout
    assert a == b
    assert table_rows(a) != table_rows(c)


def test_plot_writes_a_png(simulate: Run, tmp_path: Path) -> None:
    png = tmp_path / "scores.png"
    done = simulate("--rules", "yams", "--games", "10", "--plot", str(png))
    assert done.returncode == 0, done.stderr
    image = cv2.imread(str(png))
    assert image is not None and image.shape == (520, 900, 3)
    assert (image < 250).any()  # something was drawn


@pytest.mark.parametrize(
    "args",
    [
        ["--rules", "yams", "--players", "champion"],
        ["--rules", "yams", "--players", ","],
        ["--rules", "yams", "--games", "0"],
        ["--rules", "nope"],
        ["--rules", "yams", "--option", "brelan=half"],
        ["--rules", "yams", "--games", "2", "--plot", "/nonexistent/dir/x.png"],
    ],
)
def test_bad_input_one_line_on_stderr(simulate: Run, args: list[str]) -> None:
    done = simulate(*args)
    assert done.returncode != 0
    assert done.stderr.strip().count("\n") == 0 and done.stderr.strip()


@pytest.mark.parametrize("rules", ["impossible", "cameroun"])
def test_difficile_beats_facile(simulate: Run, rules: str, tmp_path: Path) -> None:
    done = simulate(
        "--rules", rules, "--players", "difficile,facile", "--games", "6", "--seed", "5",
        env={"YAMSCOPE_CACHE_DIR": str(tmp_path)}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = table_rows(done.stdout)
    assert rows["difficile"][0] > rows["facile"][0]  # mean over six games
