"""`yamscope bench` beyond scoring: a short live appliance run and the vision stage table
come back with numbers of the right shape (speed is the bench's to report, not asserted)."""

from __future__ import annotations

import numpy as np
import pytest

from device.bench import ApplianceRun, appliance_lines, bench_refit, run_appliance, standard_frame
from device.cli import main
from vision.bench import bench_frame


def test_a_short_appliance_run_measures_each_throw_idle_cpu_and_memory() -> None:
    run = run_appliance(throws=1, idle_seconds=0.5, size=(640, 480), seed=3)
    assert isinstance(run, ApplianceRun)
    assert run.throws == 1 and run.size == (640, 480)
    assert len(run.latencies_ms) + run.refused + run.lost == 1
    assert len(run.reading_ms) == len(run.latencies_ms)
    assert all(0 < ms < 15_000 for ms in run.latencies_ms)
    assert run.idle_cpu_percent >= 0 and run.watched_cpu_percent >= 0
    assert 10 < run.rss_mb <= run.peak_rss_mb
    lines = list(appliance_lines(run))
    assert any("idle CPU" in line for line in lines)
    assert any("a page showing the live picture" in line for line in lines)
    assert any("resident memory after the throws" in line for line in lines)


def test_the_stage_table_times_what_recognise_runs() -> None:
    frame = np.full((240, 320, 3), 90, np.uint8)
    frame[100:140, 100:140] = 230
    lines = list(bench_frame("plain", frame, kinds=("d10",), repeats=2, target_ms=50))
    assert lines[0].startswith("plain: 320x240, no calibration")
    assert any("finding dice" in line for line in lines)
    assert any(line.lstrip().startswith("detector") for line in lines)
    assert any("pip cross-check" in line and "d6 only" in line for line in lines)
    assert any("recognise (whole)" in line and "target < 50 ms" in line for line in lines)
    assert any(line.lstrip().startswith("numeral look") for line in lines)
    d6 = list(bench_frame("plain", frame, kinds=("d6",), repeats=2, target_ms=50))
    assert any("numeral look" in line and "d10 only" in line for line in d6)


def test_the_refit_of_a_whole_lesson_is_timed_with_both_heads() -> None:
    frame, calibration = standard_frame(size=(640, 480))
    (line,) = bench_refit(frame, calibration)
    assert line.startswith("enrolment refit, ") and "of 20 photos" in line
    assert "value and cocked-die heads" in line and "target ≤ 10 s" in line


def test_bench_only_scoring_prints_the_scoring_table_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "--only", "scoring", "--n", "30"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("scoring all boxes") and "vision" not in out and "appliance" not in out


def test_the_records_bench_builds_its_games_and_times_the_records_and_the_page() -> None:
    from device.records_bench import bench_records

    lines = list(bench_records(games=12, repeats=1, templates=4))
    assert lines[0].startswith("records: 12 finished games (") and "4 played" in lines[0]
    assert "records and statistics of every player" in lines[1] and "(target 1000)" in lines[1]
    assert lines[-1].startswith("records page (/records and /api/records): ")
    assert "(target 300)" in lines[-1]
