"""`yamscope score` as a user runs it: the real command in a subprocess (DESIGN.md contract)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from scoring.rulebooks import RULEBOOKS

if TYPE_CHECKING:
    from conftest import Run

SCRIPT = Path(sys.executable).parent / ("yamscope.exe" if os.name == "nt" else "yamscope")

ENTRY_KEYS = {"box", "section", "points", "base", "multipliers", "dice", "why"}
TEN = "1r 2r 3r 4r 5r 6w 7w 8w 9w 0w"
PAIRS = "1r 2r 3r 4r 5r 1w 2w 3w 4w 5w"
Scored = Callable[..., dict]  # score --json, parsed


@pytest.fixture
def score(run: Run) -> Run:
    return lambda *args: run("score", *args)


@pytest.fixture
def score_json(score: Run) -> Scored:
    def scored(*args: str) -> dict:
        done = score("--json", *args)
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
        assert done.stdout.count("\n") == 1  # one JSON document on one line
        return json.loads(done.stdout)

    return scored


def by_box(out: dict) -> dict[str, dict]:
    return {e["box"]: e for e in out["entries"]}


def sheet_order(rules: str) -> list[str]:
    return [b.id for b in RULEBOOKS[rules].boxes]


# -- the console script and the human table ----------------------------------------------
def test_console_script_is_installed_and_matches_module(run: Run, score: Run):
    assert SCRIPT.exists(), f"{SCRIPT} missing: pip install -e . in this environment"
    by_script = run("score", "--rules", "yams", "--json", "3 3 5 6 1", script=True)
    by_module = score("--rules", "yams", "--json", "3 3 5 6 1")
    assert by_script.returncode == by_module.returncode == 0
    assert by_script.stdout == by_module.stdout
    assert json.loads(by_script.stdout)["rules"] == "yams"


def test_human_table_yams(score: Run):
    done = score("--rules", "yams", "3", "3", "5", "6", "1")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == "Yam's classique : 3 3 5 6 1"
    assert lines[1].split() == ["points", "case", "détail"]
    rows = [line.split(maxsplit=2) for line in lines[2:]]
    assert len(rows) == 13
    assert sorted(r[1] for r in rows) == sorted(sheet_order("yams"))
    points = [int(r[0]) for r in rows]
    assert points == sorted(points, reverse=True)
    assert rows[0] == ["18", "chance", "Chance : total des 5 dés = 18"]
    assert ["6", "3", "Trois : 2 × 3 = 6"] in rows
    # ties keep the order of the paper sheet: 3 before 6 (both 6 points)
    assert [r[1] for r in rows[1:3]] == ["3", "6"]
    # every row's points line up under the « points » header (right-aligned, width 7)
    assert all(len(line) > 9 and line[7:9] == "  " for line in lines[2:])


def test_human_table_first_and_sixth_say_so(score: Run):
    first = score("--rules", "impossible", "--first", TEN)
    assert first.returncode == 0, first.stderr
    assert (
        first.stdout.splitlines()[0]
        == f"Yams impossible : {TEN.replace('0w', '10w')} (premier jet)"
    )
    sixth = score("--rules", "impossible", "--sixth", "suite_ridicule", TEN)
    assert sixth.returncode == 0, sixth.stderr
    head, _, first_row = sixth.stdout.splitlines()[:3]
    assert head.endswith("(6e jet annoncé pour suite_ridicule)")
    assert first_row.split()[:2] == ["10", "suite_ridicule"]


def test_dice_may_be_separated_by_commas_or_given_as_one_argument(score_json: Scored):
    a = score_json("--rules", "yams", "3,3,5,6,1")
    b = score_json("--rules", "yams", "3 3", "5", "6 1")
    assert a == b
    assert a["dice"] == ["3", "3", "5", "6", "1"]


# -- the JSON contract ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rules", "dice"),
    [
        ("yams", "3 3 5 6 1"),
        ("yahtzee", "2 3 4 5 6"),
        ("cameroun", "4 4 4 2 2"),
        ("impossible", TEN),
        ("impossible", "7rf 7rf 7rt 7wt 7wf 1rt 2rf 3wt 4wf 5wt"),
    ],
)
def test_json_contract(score_json: Scored, rules, dice):
    out = score_json("--rules", rules, dice)
    assert list(out) == ["rules", "dice", "entries"]
    assert out["rules"] == rules
    tokens = dice.split()
    assert len(out["dice"]) == len(tokens)
    assert all(isinstance(d, str) for d in out["dice"])
    assert [d.replace("10", "0", 1) if d.startswith("10") else d for d in out["dice"]] == tokens
    # every box of the rulebook, once
    assert sorted(e["box"] for e in out["entries"]) == sorted(sheet_order(rules))
    sections = {b.id: b.section for b in RULEBOOKS[rules].boxes}
    for e in out["entries"]:
        assert set(e) == ENTRY_KEYS, e
        assert isinstance(e["box"], str) and e["section"] == sections[e["box"]]
        for key in ("points", "base"):
            assert type(e[key]) is int
        assert isinstance(e["multipliers"], list)
        product = 1
        for m in e["multipliers"]:
            assert set(m) == {"x", "why"}
            assert type(m["x"]) is int and m["x"] > 1
            assert isinstance(m["why"], str) and m["why"]
            product *= m["x"]
        assert e["points"] == e["base"] * product
        assert isinstance(e["dice"], list)
        assert all(type(i) is int and 0 <= i < len(tokens) for i in e["dice"])
        assert len(set(e["dice"])) == len(e["dice"])
        assert isinstance(e["why"], str) and e["why"]
        assert (e["points"] == 0) == (e["dice"] == [])


def test_json_best_first_ties_in_sheet_order(score_json: Scored):
    out = score_json("--rules", "yams", "3 3 5 6 1")
    order = sheet_order("yams")
    keys = [(-e["points"], order.index(e["box"])) for e in out["entries"]]
    assert keys == sorted(keys)
    assert [e["box"] for e in out["entries"]][:5] == ["chance", "3", "6", "5", "1"]


def test_json_best_first_impossible(score_json: Scored):
    out = score_json("--rules", "impossible", TEN)
    # plus and moins are ranked by what they add to the différence, not by their points
    points = [e["points"] for e in out["entries"] if e["box"] not in ("plus", "moins")]
    assert points == sorted(points, reverse=True)
    assert out["entries"][0]["box"] == "the_suite"
    assert out["entries"][0]["points"] == 400


def test_json_dice_indices_point_at_the_dice_used(score_json: Scored):
    dice = "5 2 5 1 5"
    out = by_box(score_json("--rules", "yams", dice))
    assert out["5"]["dice"] == [0, 2, 4]
    assert out["5"]["points"] == 15
    assert out["2"]["dice"] == [1]
    assert out["chance"]["dice"] == [0, 1, 2, 3, 4]
    assert out["brelan"]["points"] == 18 and out["brelan"]["dice"] == [0, 1, 2, 3, 4]
    assert out["full"]["dice"] == []

    imp = by_box(score_json("--rules", "impossible", "9r 9r 9r 9r 1r 2w 3w 4w 9w 6w"))
    values = [9, 9, 9, 9, 1, 2, 3, 4, 9, 6]
    # a carré of four red 9s: the harmony, and the indices are the four red ones
    assert imp["carre"]["dice"] == [0, 1, 2, 3]
    assert imp["carre"]["multipliers"] == [{"x": 2, "why": "harmonie des couleurs"}]
    assert imp["carre"]["points"] == 20
    assert sorted(imp["9"]["dice"]) == [0, 1, 2, 3, 8] and imp["9"]["points"] == 45
    assert all(values[i] == 9 for i in imp["youpi_yams"]["dice"])
    assert imp["suite_ridicule"]["points"] == 0


def test_first_throw_triples_combinations_not_chiffres(score_json: Scored):
    plain = by_box(score_json("--rules", "impossible", PAIRS))
    first = by_box(score_json("--rules", "impossible", "--first", PAIRS))
    assert plain["tout_en_paires"]["points"] == 250
    assert first["tout_en_paires"]["points"] == 750
    assert first["tout_en_paires"]["multipliers"] == [{"x": 3, "why": "premier jet"}]
    assert first["suite_ridicule"]["points"] == 3 * plain["suite_ridicule"]["points"] > 0
    for v in range(1, 11):
        assert first[str(v)] == plain[str(v)]
    assert first["plus"]["points"] == plain["plus"]["points"] == 30
    assert first["plus"]["multipliers"] == []


@pytest.mark.parametrize(
    ("rules", "box", "dice", "points"),
    [
        ("impossible", "suite_ridicule", TEN, 10),  # made: the legal points
        ("impossible", "youpi_yams", TEN, -25),  # missed: minus the legal points
        ("impossible", "double_carre", PAIRS, -100),
        ("cameroun", "P", "1 2 3 4 5", 15),  # Cameroun's announced third throw
        ("cameroun", "P", "1 2 3 4 6", 0),
        ("cameroun", "4", "4 4 1 2 3", 8),  # Cameroun announces number columns too
    ],
)
def test_sixth_announced_box_first_others_zero(score_json: Scored, rules, box, dice, points):
    out = score_json("--rules", rules, "--sixth", box, dice)
    first, *others = out["entries"]
    assert first["box"] == box
    assert first["points"] == points
    assert sorted(e["box"] for e in others) == sorted(b for b in sheet_order(rules) if b != box)
    assert all(e["points"] == 0 and e["dice"] == [] for e in others)
    assert all(set(e) == ENTRY_KEYS for e in out["entries"])


@pytest.mark.parametrize(
    ("rules", "options", "dice", "box", "points"),
    [
        ("yams", [], "3 3 3 5 6", "brelan", 20),
        ("yams", ["brelan=matching"], "3 3 3 5 6", "brelan", 9),
        ("yams", [], "3 3 3 3 6", "carre", 18),
        ("yams", ["carre=matching"], "3 3 3 3 6", "carre", 12),
        ("yams", ["carre=40"], "3 3 3 3 6", "carre", 40),
        ("yams", [], "2 3 4 5 6", "petite_suite", 30),
        ("yams", ["straights=fixed"], "2 3 4 5 6", "petite_suite", 0),
        ("yams", ["straights=fixed", "brelan=matching"], "1 2 3 4 5", "petite_suite", 30),
        ("impossible", [], "1r 2r 3r 4r 5r 7w 7w 8w 8w 9w", "suite_ridicule", 10),
        ("impossible", ["sixth_throw_harmony=true"], "1r 2r 3r 4r 5r 7w 7w 8w 8w 9w",
         "suite_ridicule", 20),
    ],
)  # fmt: skip
def test_option(score_json: Scored, rules, options, dice, box, points):
    args = [f"--option={o}" for o in options]
    if rules == "impossible":
        args += ["--sixth", box]
    out = by_box(score_json("--rules", rules, *args, dice))
    assert out[box]["points"] == points


# -- bad input: non-zero, one line on stderr, nothing on stdout ----------------------------
BAD = [
    ("nine dice for impossible", ["--rules", "impossible", "1r 2r 3r 4r 5r 6w 7w 8w 9w"]),
    ("eleven dice for impossible", ["--rules", "impossible", TEN + " 1w"]),
    ("six red dice", ["--rules", "impossible", "1r 2r 3r 4r 5r 6r 7w 8w 9w 0w"]),
    ("a die without colour", ["--rules", "impossible", "1r 2r 3r 4r 5r 6w 7w 8w 9w 0"]),
    ("11r is no die", ["--rules", "impossible", "11r 2r 3r 4r 5r 6w 7w 8w 9w 0w"]),
    ("not a die", ["--rules", "impossible", "1x 2r 3r 4r 5r 6w 7w 8w 9w 0w"]),
    ("some finishes only", ["--rules", "impossible", "1rf 2r 3r 4r 5r 6w 7w 8w 9w 0w"]),
    ("unknown box for --sixth", ["--rules", "impossible", "--sixth", "poker", TEN]),
    ("sixth for a number box", ["--rules", "impossible", "--sixth", "7", TEN]),
    ("sixth for the 10s", ["--rules", "impossible", "--sixth", "10", TEN]),
    ("sixth for plus", ["--rules", "impossible", "--sixth", "plus", TEN]),
    ("sixth in classic yams", ["--rules", "yams", "--sixth", "yams", "1 1 1 1 1"]),
    ("unknown rulebook", ["--rules", "poker", "1 2 3 4 5"]),
    ("no rulebook", ["1 2 3 4 5"]),
    ("no dice", ["--rules", "yams"]),
    ("unknown option", ["--rules", "yams", "--option", "nope=1", "1 2 3 4 5"]),
    ("bad option value", ["--rules", "yams", "--option", "brelan=median", "1 2 3 4 5"]),
    ("option without value", ["--rules", "yams", "--option", "brelan", "1 2 3 4 5"]),
    ("option of another rulebook", ["--rules", "cameroun", "--option", "carre=40", "1 2 3 4 5"]),
    ("four dice for yams", ["--rules", "yams", "1 2 3 4"]),
    ("a 7 on a d6", ["--rules", "yams", "7 1 1 1 1"]),
    ("colours in classic yams", ["--rules", "yams", "1r 1 1 1 1"]),
    ("colours in cameroun", ["--rules", "cameroun", "1 1 1 1 1w"]),
    ("unknown flag", ["--rules", "yams", "--best", "1 2 3 4 5"]),
]


@pytest.mark.parametrize("args", [b[1] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_one_line_on_stderr(score: Run, args):
    done = score(*args)
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr.endswith("\n")
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("yamscope")
    assert "error" in lines[0]
    assert "Traceback" not in done.stderr


def test_bad_input_names_the_problem(score: Run):
    assert "poker" in score("--rules", "impossible", "--sixth", "poker", TEN).stderr
    assert "11r" in score("--rules", "impossible", "11r 2r 3r 4r 5r 6w 7w 8w 9w 0w").stderr
    assert "poker" in score("--rules", "poker", "1 2 3 4 5").stderr
    assert "nope" in score("--rules", "yams", "--option", "nope=1", "1 2 3 4 5").stderr
    assert "9" in score("--rules", "impossible", "1r 2r 3r 4r 5r 6w 7w 8w 9w").stderr


def test_no_command_is_one_line_too(run: Run):
    done = run()
    assert done.returncode != 0
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1


def test_help_goes_to_stdout(score: Run):
    done = score("--help")
    assert done.returncode == 0
    assert "--sixth" in done.stdout and "--option" in done.stdout
    assert done.stderr == ""


def test_help_lists_players_and_owners_commands_first_then_the_lab(run: Run):
    done = run("--help")
    assert done.returncode == 0, done.stderr
    players, lab = done.stdout.split("lab commands")
    assert "commands for players and owners" in players
    for name in ("score", "advise", "serve", "calibrate", "recognise", "evaluate", "bench"):
        assert f"\n  {name} " in players, name
    for name in ("train", "train-cocked", "train-detector", "evaluate-crops", "render"):
        assert f"\n  {name} " in lab, name
