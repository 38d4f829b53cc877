"""The rules of each rulebook as the page shows them (« Règles »): a few lines a family reads
before its first game, in French and English, and the points each figure is worth.

Why short and here: the full texts are the seeds (French, long, and not shipped), and
docs/rules.md says how each sentence was read; at the table players need what to aim at,
how many throws, and what the sheet pays. The points come from the rulebooks themselves.
"""

from __future__ import annotations

from typing import Any

from device.words import english
from scoring.rulebooks import RULEBOOKS

SUMMARY: dict[str, dict[str, list[str]]] = {
    "impossible": {
        "fr": [
            "Dix dés à dix faces : cinq rouges, cinq blancs. Jusqu'à cinq jets par tour ; "
            "après chacun, gardez les dés que vous voulez et relancez les autres.",
            "À chaque tour, inscrivez une case (à zéro si les dés ne la remplissent pas).",
            "Les chiffres : le nombre de dés de la valeur × la valeur ; 330 points ou plus "
            "dans les chiffres donnent 500 points de bonus.",
            "Yams, suites et combinaisons valent des points fixes (ci-dessous), ×3 s'ils sont "
            "faits du premier jet, ×2 si chaque groupe est d'une couleur, ×2 encore s'il est "
            "d'une finition (givré ou transparent).",
            "Plus et Moins notent la somme des dix dés ; la différence (Plus − Moins) est "
            "multipliée par le nombre de « 1 » de la case des 1.",
            "Après le 5e jet, on peut annoncer un 6e jet pour une combinaison : réussi, il "
            "vaut ses points ; manqué, il les retire.",
        ],
        "en": [
            "Ten ten-sided dice: five red, five white. Up to five throws a turn; after each, "
            "keep the dice you want and throw the others again.",
            "Each turn, write one box (for zero if the dice do not fill it).",
            "The numbers: how many dice show the value × the value; 330 points or more in the "
            "numbers give a 500-point bonus.",
            "Yams, straights and combinations are worth fixed points (below), ×3 when made on "
            "the first throw, ×2 when each group is of one colour, ×2 again of one finish "
            "(frosted or transparent).",
            "Plus and Minus record the sum of the ten dice; the difference (Plus − Minus) is "
            "multiplied by the number of 1s written in the 1s box.",
            "After the 5th throw a 6th may be announced for a combination: made, it scores "
            "its points; missed, it takes them off.",
        ],
    },
    "yams": {
        "fr": [
            "Cinq dés, treize tours, jusqu'à trois jets par tour ; gardez des dés entre les "
            "jets. À chaque tour, inscrivez une case, à zéro s'il le faut.",
            "En haut, As à Six : la somme des dés de la face ; 63 ou plus donnent 35 points "
            "de prime.",
            "Brelan et carré : trois ou quatre dés identiques, le total des cinq dés (voir les "
            "options) ; full 25, petite suite (quatre qui se suivent) 30, grande suite (cinq) "
            "40, Yam's (cinq identiques) 50, chance : le total des dés.",
        ],
        "en": [
            "Five dice, thirteen turns, up to three throws a turn; keep dice between throws. "
            "Each turn, write one box, for zero if need be.",
            "Upper boxes, Aces to Sixes: the sum of the dice of that face; 63 or more give a "
            "35-point bonus.",
            "Three and four of a kind: the total of the five dice (see the options); full "
            "house 25, small straight (four in a row) 30, large straight (five) 40, Yam's "
            "(five alike) 50, chance: the total of the dice.",
        ],
    },
    "yahtzee": {
        "fr": [
            "Les cases et les jets du Yam's classique (cinq dés, treize tours, trois jets).",
            "Chaque Yam's de plus, une fois 50 inscrit au Yam's, vaut 100 points de prime et "
            "sert de joker pour le full et les suites.",
        ],
        "en": [
            "The boxes and throws of classic Yam's (five dice, thirteen turns, three throws).",
            "Each further Yam's, once 50 is written in Yam's, is a 100-point bonus and a joker "
            "for the full house and the straights.",
        ],
    },
    "cameroun": {
        "fr": [
            "Cinq dés ; dix colonnes partagées par la table : 1 à 6, P, G, F, Q. Deux jets "
            "libres, un troisième seulement en annonçant la colonne visée.",
            "Une colonne numérotée reçoit le nombre de dés de ce chiffre × le chiffre ; elle "
            "se ferme pour tous quand la table y a mis six fois son chiffre.",
            "P : 1-2-3-4-5 (15), G : 2-3-4-5-6 (20), F : un full, la somme des dés, Q : cinq "
            "identiques (30) ; chacune se ferme dès qu'elle est prise.",
            "3e jet manqué : rien dans une colonne numérotée ; P, G, F ou Q barrée pour tous.",
            "La partie finit quand tout est fermé ou après le nombre de tours choisi ; le plus "
            "haut total gagne.",
        ],
        "en": [
            "Five dice; ten columns shared by the table: 1 to 6, P, G, F, Q. Two free throws, "
            "a third only by announcing the column aimed at.",
            "A number column takes how many dice show its number × the number; it closes for "
            "everyone once the table has put six times its number in it.",
            "P: 1-2-3-4-5 (15), G: 2-3-4-5-6 (20), F: a full house, the sum of the dice, Q: "
            "five alike (30); each closes as soon as it is taken.",
            "A missed 3rd throw: nothing in a number column; P, G, F or Q crossed out for all.",
            "The game ends when everything is closed or after the chosen number of turns; the "
            "highest total wins.",
        ],
    },
}


def fixed_points(rules: str) -> list[dict[str, Any]]:
    """The boxes worth fixed points in ``rules`` (before multipliers), with their names."""
    if rules == "impossible":
        from scoring.rulebooks.impossible import LEGAL_POINTS as points
    else:
        points = {}
    boxes = {b.id: b.label for b in RULEBOOKS[rules].boxes}
    return [
        {"box": box, "label": boxes[box], "label_en": english(boxes[box]), "points": pts}
        for box, pts in points.items()
    ]


def rules_text(rules: str) -> dict[str, Any]:
    """What the page's rules dialog shows for ``rules``."""
    return {"summary": SUMMARY[rules], "points": fixed_points(rules)}
