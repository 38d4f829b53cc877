"""What the long commands say while they work, and how they print counts (issue 24): a
progress bar names what it counts, nothing long runs silent, games won are whole."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def yamscope(*args: str, cache: Path | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    if cache is not None:
        env["YAMSCOPE_CACHE_DIR"] = str(cache)
    return subprocess.Popen(
        [sys.executable, "-m", "device.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=env,
    )


def test_simulate_prints_games_won_as_whole_numbers() -> None:
    done = yamscope(
        "simulate", "--rules", "yams", "--players", "facile,facile", "--games", "8", "--quiet"
    )
    out, err = done.communicate(timeout=120)
    assert done.returncode == 0, err
    rows = [line.split() for line in out.splitlines()[2:4]]
    wins = [row[-1] for row in rows]
    assert all(re.fullmatch(r"\d+(\.5)?", w) for w in wins), wins
    assert sum(float(w) for w in wins) == 8


def test_advise_expected_says_it_solves_and_counts_only_simulated_games(tmp_path: Path) -> None:
    solved = yamscope("advise", "--rules", "yams", "--expected", cache=tmp_path)
    out, err = solved.communicate(timeout=300)
    assert solved.returncode == 0, err
    assert "solving Yam's classique exactly" in err and "game/s" not in err and "/100" not in err
    assert "245.8708" in out
    simulated = yamscope(
        "advise", "--rules", "impossible", "--expected", "--games", "2", cache=tmp_path
    )
    out, err = simulated.communicate(timeout=300)
    assert simulated.returncode == 0, err
    assert "simulated solo games of difficile" in err and "2/2" in err


def test_bench_says_what_it_runs_before_the_appliance_minute() -> None:
    bench = yamscope("bench", "--only", "appliance", "--throws", "1")
    try:
        ready, _, _ = select.select([bench.stderr], [], [], 60)
        assert ready, "nothing said in a minute"
        first = bench.stderr.readline()  # type: ignore[union-attr]
        assert first.startswith("appliance: watching the empty tray for 10 s")
        assert bench.poll() is None  # said while the run goes on, not at its end
    finally:
        bench.kill()
        bench.communicate(timeout=30)
