"""`yamscope advise` as a user runs it: expected score, advice at a moment, coach, bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from scoring.game import Game

if TYPE_CHECKING:
    from conftest import Run

Advised = Callable[..., dict]  # advise --json, parsed


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def advise(run: Run) -> Run:
    """``yamscope advise ARGS`` with its solved strategies kept in ``cache``."""
    return lambda cache, *args: run(
        "advise", *args, env={"YAMSCOPE_CACHE_DIR": str(cache)}, timeout=300
    )


@pytest.fixture(scope="module")
def advise_json(advise: Run) -> Advised:
    def advised(cache: Path, *args: str) -> dict:
        done = advise(cache, "--json", *args)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return advised


def test_expected_score_of_a_new_game_is_the_published_optimum(advise: Run, cache: Path) -> None:
    done = advise(cache, "--rules", "yams", "--expected")
    assert done.returncode == 0, done.stderr
    assert "245.8708" in done.stdout
    assert list(cache.rglob("*.npz"))  # the solve is kept for the next call


def test_advice_on_a_new_game_keeps_the_three_sixes(advise_json: Advised, cache: Path) -> None:
    out = advise_json(cache, "--rules", "yams", "--dice", "6 6 6 2 3", "--throw", "1")
    assert out["best"]["keep"] == [6, 6, 6]
    assert out["best"]["dice"] == [0, 1, 2]
    losses = [k["loss"] for k in out["keeps"]]
    assert losses[0] == 0 and losses == sorted(losses)
    boxes = {b["box"]: b for b in out["entries"]}
    assert set(boxes) == {b.id for b in Game("yams", ["x"]).rulebook.boxes}
    assert boxes["brelan"]["entry_points"] == 23
    assert all(b["loss"] > 0 for b in out["entries"])  # keeping beats every entry now
    assert sum(out["keeps"][0]["fill"].values()) == pytest.approx(1, abs=1e-3)


def test_last_throw_has_no_keeps_and_best_is_a_box(advise_json: Advised, cache: Path) -> None:
    out = advise_json(cache, "--rules", "yams", "--dice", "2 3 4 5 6", "--throw", "3")
    assert out["keeps"] == []
    assert out["best"]["box"] == out["entries"][0]["box"] == "grande_suite"


def test_advice_reads_the_sheet_of_a_saved_game(
    advise_json: Advised, cache: Path, tmp_path: Path
) -> None:
    game = Game("yams", ["ana", "bob"])
    game.throw("2 3 4 5 6")
    game.score("grande_suite")
    game.throw("1 1 2 3 4")
    game.score("1")
    game.throw("5 5 1 2 3")  # ana's turn in progress: the advice replaces these throws
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.to_json()))
    args = ("--rules", "yams", "--game", str(path), "--dice", "2 3 4 5 6", "--throw", "1")
    out = advise_json(cache, *args)
    assert "grande_suite" not in {b["box"] for b in out["entries"]}  # already written by ana
    assert out["player"] == "ana"
    assert json.loads(path.read_text()) == game.to_json()  # the file is left alone


def test_coach_says_what_a_choice_costs(advise: Run, advise_json: Advised, cache: Path) -> None:
    args = ("--rules", "yams", "--dice", "6 6 6 2 3", "--throw", "2")
    best = advise_json(cache, *args)
    chose = advise_json(cache, *args, "--chose", "chance")
    chance = next(b for b in best["entries"] if b["box"] == "chance")
    assert chose["coach"]["loss"] == pytest.approx(chance["loss"], abs=1e-4)
    assert chose["coach"]["loss"] > 0
    kept = advise_json(cache, *args, "--kept", "0,1,2")
    assert kept["coach"]["loss"] == 0
    text = advise(cache, *args, "--kept", "3")
    assert text.returncode == 0 and "coach" in text.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--rules", "yams"],
        ["--rules", "yams", "--dice", "6 6 6 2 3", "--throw", "4"],
        ["--rules", "yams", "--dice", "6 6 6 2", "--throw", "1"],
        ["--rules", "yams", "--dice", "6 6 6 2 9", "--throw", "1"],
        ["--rules", "yams", "--dice", "6 6 6 2 3", "--throw", "1", "--chose", "nope"],
        ["--rules", "yams", "--dice", "6 6 6 2 3", "--throw", "1", "--kept", "7"],
        ["--rules", "yams", "--dice", "6 6 6 2 3", "--throw", "3", "--kept", "0"],
        ["--rules", "yams", "--game", "/nonexistent.json", "--dice", "1 2 3 4 5", "--throw", "1"],
    ],
)
def test_bad_input_one_line_on_stderr(advise: Run, cache: Path, args: list[str]) -> None:
    done = advise(cache, *args)
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr.strip() and "\n" not in done.stderr.strip()


def test_cameroun_advice_announces_the_third_throw_for_four_sixes(
    advise_json: Advised, cache: Path
) -> None:
    out = advise_json(cache, "--rules", "cameroun", "--dice", "6 6 6 6 3", "--throw", "2")
    assert out["best"]["action"] == "announce"
    assert out["best"]["box"] == "6" and sorted(out["best"]["keep"]) == [6, 6, 6, 6]
    assert out["keeps"] == []  # after the second throw only an announced throw is left
    assert {e["box"] for e in out["entries"]} == {"1", "2", "3", "4", "5", "6", "P", "G", "F", "Q"}


def test_expected_score_without_an_exact_solve_is_an_estimate(advise: Run, cache: Path) -> None:
    done = advise(cache, "--rules", "cameroun", "--expected", "--games", "20")
    assert done.returncode == 0, done.stderr
    assert "estimate: mean of 20 solo games of difficile" in done.stdout
    value = float(done.stdout.split(": ")[1].split()[0])
    assert 80 < value < 180  # a solo cameroun game of ten turns: 124.8 on average
    bad = advise(cache, "--rules", "cameroun", "--expected", "--games", "1")
    assert bad.returncode == 2


def test_bad_game_files(advise: Run, cache: Path, tmp_path: Path) -> None:
    cases = {
        "notjson.json": "{nope",
        "notgame.json": json.dumps({"hello": 1}),
        "other.json": json.dumps(Game("yahtzee", ["a"]).to_json()),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        done = advise(
            cache, "--rules", "yams", "--game", str(path), "--dice", "1 2 3 4 5", "--throw", "1"
        )
        assert done.returncode != 0, name
        assert done.stderr.strip() and "\n" not in done.stderr.strip(), name


def test_a_corrupt_cache_is_rebuilt_not_trusted(advise: Run, tmp_path: Path) -> None:
    first = advise(tmp_path, "--rules", "yams", "--expected")
    assert "245.8708" in first.stdout
    for path in tmp_path.rglob("*.npz"):
        path.write_bytes(b"garbage")
    again = advise(tmp_path, "--rules", "yams", "--expected")
    assert again.returncode == 0 and "245.8708" in again.stdout


def test_impossible_advice_values_keeps_and_entries_as_expected_final_scores(
    advise_json: Advised, cache: Path
) -> None:
    dice = "7r 7r 7r 2r 3r 7w 7w 1w 9w 4w"
    out = advise_json(cache, "--rules", "impossible", "--dice", dice, "--throw", "1")
    assert out["objective"] == "score"
    assert out["best"]["action"] == "keep" and out["best"]["keep"].count(7) == 5
    assert out["value"] == pytest.approx(out["best"]["value"])
    boxes = {e["box"]: e for e in out["entries"]}
    assert boxes["youpi_yams"]["entry_points"] == 75  # five 7s, first throw ×3
    for option in out["entries"] + out["keeps"]:
        assert option["loss"] >= 0
        assert option["value"] == pytest.approx(out["value"] - option["loss"])
    last = advise_json(cache, "--rules", "impossible", "--dice", dice, "--throw", "5")
    assert last["keeps"] == [] and {a["action"] for a in last["announces"]} <= {"announce"}
