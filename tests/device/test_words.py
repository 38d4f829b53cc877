"""The page's two languages: every text the engine builds reads as English once translated,
and the appliance's messages players meet read as French."""

from __future__ import annotations

import contextlib
import dataclasses
import random
import re

import pytest

from device.words import CHOICE_WORDS, OPTION_WORDS, both, english, french, option_words
from scoring.computer import roll
from scoring.dice import Die
from scoring.entries import RulesError
from scoring.game import Game
from scoring.rulebooks import RULEBOOKS, get_rulebook

# Words of the engine's French that have no business in an English sentence.
FRENCH = re.compile(
    r"\b(le|la|les|des|de|du|un|une|et|pas|aucun|jet|dés|dé|faut|somme|rouges?|blancs?|"
    r"givrés?|transparents|harmonie|barrée|fermée|colonnes?|suite|séquence|annoncé|réussi|"
    r"manqué|meilleur|prime|valeur|fixe|limité|essai|joueurs|compte|obtenu|marque|partie|"
    r"haute|basse|chiffres|combinaisons|différence|général|trois|cinq|deux|quatre|brelan|"
    r"carré|as|moins|tordu|suprême|paires|géante|ridicule|royale|supérieur|youpi|quinte|"
    r"petite|grande|classique|si|ou|à|n°)\b",
    re.I,
)
# Words of the appliance's English that have no business in a French sentence.
ENGLISH = re.compile(r"\b(the|is|are|dice|read|expected|throw|again|with|every|not|must|no)\b")
FIVE_DICE_OPTIONS = {"brelan": "matching", "carre": "40", "straights": "fixed", "joker": "free"}


def engine_texts(rules: str, options: dict, throws: int = 300) -> set[str]:
    """Every name, total and reason the rulebook gives for random throws (a fifth of them
    all of one value), plain, as a first throw, and as each announced extra throw."""
    rng = random.Random(1)
    rb = get_rulebook(rules, options)
    texts = {rb.name, str(rb.announced_throw or "")} | {b.label for b in rb.boxes}
    texts |= {t.label for t in Game(rules, ["A"], options).totals(0)}
    for _ in range(throws):
        dice = roll(Game(rules, ["A"], options), rng)
        if rng.random() < 0.2:
            dice = tuple(Die(dice[0].value, d.colour, d.finish) for d in dice)
        for first in (True, False):
            for e in rb.score(dice, first=first):
                texts |= {e.why, *(m.why for m in e.multipliers)}
        for box in rb.boxes if rb.announced_throw else ():
            with contextlib.suppress(RulesError):  # no extra throw for that box
                texts |= {e.why for e in rb.score(dice, sixth=box.id)}
    return texts - {""}


@pytest.mark.parametrize("rules", sorted(RULEBOOKS))
def test_every_text_of_the_engine_reads_as_english(rules: str) -> None:
    options = FIVE_DICE_OPTIONS if rules == "yams" else {}
    texts = engine_texts(rules, options)
    assert len(texts) > 40
    left = {t: english(t) for t in texts if FRENCH.search(english(t).replace("Yahtzee-style", ""))}
    assert left == {}


def test_numbers_and_ordinals_in_english() -> None:
    assert english("Les 7 : 3 × 7 = 21") == "7s: 3 × 7 = 21"
    assert english("3e jet manqué : Quinte est barrée pour tous les joueurs") == (
        "3rd throw missed: Five of a kind is crossed out for every player"
    )
    assert english("Colonne des 4 : 2 × 4 = 8, limité à 3 (total de la colonne : 20)") == (
        "4s column: 2 × 4 = 8, limited to 3 (column total: 20)"
    )
    assert english("fermée par Anne") == "closed by Anne"
    assert english("Anne") == "Anne"  # names are never translated


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("8 dice read on the tray, 10 expected: throw again with every die in the tray",
         "8 dés lus sur la piste, 10 attendus : relancez avec tous les dés dans la piste"),
        ("3 dice read on the tray, 2 expected (3 set aside): throw again with every die in "
         "the tray", "3 dés lus sur la piste, 2 attendus (3 mis de côté) : relancez avec tous "
         "les dés dans la piste"),
        ("a d10 is on the tray: yams is played with d6",
         "un d10 est sur la piste : yams se joue avec des d6"),
        ("it is Ordi facile's turn: the computer plays it",
         "c'est au tour d'Ordi facile : l'ordinateur joue"),
        ("the tray could not be calibrated: no felt found in the middle of the view",
         "la piste n'a pas pu être calibrée : pas de feutre au milieu de l'image"),
        ("Bruno has thrown 3 times: write an entry", "Bruno a lancé 3 fois : inscrivez une case"),
    ],
)  # fmt: skip
def test_the_appliances_messages_in_french(message: str, expected: str) -> None:
    assert french(message) == expected
    assert both(message) == {"en": message, "fr": expected}


def test_a_message_not_in_the_catalogue_is_kept_as_it_is() -> None:
    assert french("something new happened") == "something new happened"


def test_what_players_are_told_by_the_game_reads_as_french() -> None:
    game = Game("yams", ["Anne"])
    said = []
    for action in (
        lambda: game.score("chance"),
        lambda: game.throw("1 2 3 4", []),
        lambda: game.throw("1 2 3 4 9", []),
        lambda: game.undo(),
        lambda: game.correct("1 2 3 4 5"),
    ):
        with pytest.raises(RulesError) as caught:
            action()
        said.append(french(str(caught.value)))
    assert [s for s in said if ENGLISH.search(s)] == []


def test_every_option_and_choice_has_words_in_both_languages() -> None:
    for cls in RULEBOOKS.values():
        for f in dataclasses.fields(cls.options_type):
            assert f.name in OPTION_WORDS, f.name
            choices = f.metadata.get("choices")
            words = option_words(f.name, f.metadata["help"], list(choices) if choices else None)
            assert words["help"] != words["help_en"]
            labels = zip(
                words.get("choice_labels", []),
                words.get("choice_labels_en", []),
                choices or (),
                strict=True,
            )
            for fr, en, choice in labels:
                assert str(choice) in CHOICE_WORDS and fr and en
