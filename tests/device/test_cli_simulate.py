"""`yamscope simulate` as a user runs it: scores, histogram, PNG plot, bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "device.cli", "simulate", "--quiet", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


def table_rows(stdout: str) -> dict[str, list[float]]:
    rows = {}
    for line in stdout.splitlines()[2:]:
        parts = line.split()
        if len(parts) == 7 and not line.startswith(" "):
            rows[parts[0]] = [float(x) for x in parts[1:]]
    return rows


@pytest.mark.parametrize("rules", ["impossible", "yams", "yahtzee", "cameroun"])
def test_prints_mean_spread_and_histogram(rules: str) -> None:
    done = run("--rules", rules, "--players", "facile,facile", "--games", "6", "--seed", "3")
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


def test_same_seed_same_games_other_seed_other_games() -> None:
    a = run("--rules", "yams", "--games", "5", "--seed", "1").stdout
    b = run("--rules", "yams", "--games", "5", "--seed", "1").stdout
    c = run("--rules", "yams", "--games", "5", "--seed", "2").stdout
    assert a == b
    assert table_rows(a) != table_rows(c)


def test_plot_writes_a_png(tmp_path: Path) -> None:
    png = tmp_path / "scores.png"
    done = run("--rules", "yams", "--games", "10", "--plot", str(png))
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
def test_bad_input_one_line_on_stderr(args: list[str]) -> None:
    done = run(*args)
    assert done.returncode != 0
    assert done.stderr.strip().count("\n") == 0 and done.stderr.strip()


@pytest.mark.parametrize("rules", ["impossible", "cameroun"])
def test_difficile_beats_facile(rules: str, tmp_path: Path) -> None:
    env_cache = {"YAMSCOPE_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "device.cli", "simulate", "--quiet", "--rules", rules,
         "--players", "difficile,facile", "--games", "6", "--seed", "5"],
        capture_output=True, text=True, encoding="utf-8", cwd=ROOT,
        env={**os.environ, **env_cache}, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = table_rows(done.stdout)
    assert rows["difficile"][0] > rows["facile"][0]  # mean over six games
