"""The table page's two languages for what the server says: the engine's French in English,
the appliance's English messages in French, and the new-game options in both.

Why here and not in the engine: the rulebooks speak French, as the seed texts they come
from, and the appliance's errors are English, as its logs and command line; only the page
shows both to players, so the page's layer translates, by the few phrases each side builds
its sentences from. A text with nothing known in it comes back unchanged (never lost).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

Rule = tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]


def _ordinal(n: str) -> str:
    """3 → 3rd, 6 → 6th, 11 → 11th."""
    if n[-2:] in ("11", "12", "13"):
        return f"{n}th"
    return n + {"1": "st", "2": "nd", "3": "rd"}.get(n[-1], "th")


def _rules(pairs: list[tuple[str, Any]]) -> list[Rule]:
    return [(re.compile(p), r) for p, r in pairs]


# -- the engine's French, in English ----------------------------------------------------------
LABELS_EN = {
    # five-dice sheets (seed 001, 004)
    "As": "Aces", "Deux": "Twos", "Trois": "Threes", "Quatre": "Fours", "Cinq": "Fives",
    "Six": "Sixes", "Brelan": "Three of a kind", "Carré": "Four of a kind", "Full": "Full house",
    "Petite suite": "Small straight", "Grande suite": "Large straight",
    "Total partie haute": "Upper total", "Total partie basse": "Lower total",
    "Primes Yam's": "Yam's bonuses", "Partie haute": "Upper section",
    "Partie basse": "Lower section",
    # Yams impossible (seed 000)
    "Youpi Yams": "Yippee Yams", "Yams de René": "René's Yams",
    "Yams Supérieur": "Superior Yams", "Yams Impossible": "Impossible Yams",
    "Suite Ridicule": "Ridiculous Straight", "Petite Suite": "Small Straight",
    "Suite de Marcel": "Marcel's Straight", "Suite Royale": "Royal Straight",
    "Suite Géante": "Giant Straight", "The Suite": "The Straight",
    "Double Brelan": "Double Three of a Kind", "Triple Brelan": "Triple Three of a Kind",
    "Double Carré": "Double Four of a Kind", "Full Tordu": "Twisted Full House",
    "Grand Full": "Grand Full House", "Full Suprême": "Supreme Full House",
    "Tout en Paires": "All in Pairs", "Moins": "Minus", "Chiffres": "Numbers",
    "Suites": "Straights", "Combinaisons": "Combinations", "Différence": "Difference",
    "Total général": "Grand total",
    # Cameroun (seed 002)
    "Petite séquence": "Small sequence", "Grande séquence": "Large sequence",
    "Quinte": "Five of a kind",
    # rulebook names
    "Yam's classique": "Classic Yam's", "Yams style Yahtzee": "Yahtzee-style Yams",
    "Yams impossible": "Impossible Yams",
}  # fmt: skip

_EN = _rules(
    [
        (r"\bLes (\d+)\b", r"\1s"),
        (r"\bColonnes 1 à 6\b", "Columns 1 to 6"),
        (r"\bColonne des (\d+)\b", r"\1s column"),
        (r"\bPrime \((\d+) si (\d+) ou plus\)", r"Bonus (\1 at \2 or more)"),
        (r"\bBonus \((\d+) à (\d+)\)", r"Bonus (\1 at \2)"),
        (r"\bTotal n°(\d+)", r"Total no. \1"),
        (r"\(suites\)", "(straights)"),
        (r"\(combinaisons\)", "(combinations)"),
        (r"\(différence\)", "(difference)"),
        (r"\bpas (\d+) dés identiques\b", r"not \1 of a kind"),
        (r"\bpas de suite de (\d+) dés\b", r"no straight of \1 dice"),
        (r"\bpas de suite\b", "no straight"),
        (r"\bpas de groupes\b", "no groups"),
        (r"\btotal des (\d+) dés\b", r"total of the \1 dice"),
        (r"\bsomme des dés\b", "sum of the dice"),
        (r"\(le plus grand est le meilleur\)", "(the higher the better)"),
        (r"\(le plus petit est le meilleur\)", "(the lower the better)"),
        (r"\bvaleur fixe\b", "fixed value"),
        (r"\bil faut un brelan et une paire\b", "needs three of a kind and a pair"),
        (r"\bil faut trois dés identiques et une paire\b", "needs three of a kind and a pair"),
        (r"\bil faut cinq dés identiques\b", "needs five of a kind"),
        (r"\bil faut\b", "needs"),
        (r"\btrois (\d+) et deux (\d+)\b", r"three \1s and two \2s"),
        (r"\bcinq (\d+)\b", r"five \1s"),
        (r"\baucun (\d+)\b", r"no \1"),
        (r"\b(\d+)e jet\b", lambda m: f"{_ordinal(m.group(1))} throw"),
        (r"\bréussi\b", "made"),
        (r"\bmanqué\b", "missed"),
        (r"\bannoncé pour\b", "announced for"),
        (r"\bnon obtenu, on marque\b", "not made, scores"),
        (r"\bpoints légaux\b", "legal points"),
        (r"\ble dernier essai ne compte pas\b", "the last try does not count"),
        (r"\best barrée pour tous les joueurs\b", "is crossed out for every player"),
        (r"\blimité à\b", "limited to"),
        (r"\btotal de la colonne\b", "column total"),
        (r"\bbarrée par\b", "crossed out by"),
        (r"\bfermée par\b", "closed by"),
        (r"\bprime Yam's\b", "Yam's bonus"),
        (r"\bpremier jet\b", "first throw"),
        (r"\bharmonie des couleurs\b", "colour harmony"),
        (r"\bharmonie givré/transparent\b", "frosted/transparent harmony"),
        (r"\brouges?\b", "red"),
        (r"\bblancs?\b", "white"),
        (r"\bgivrés?\b", "frosted"),
        (r"\btransparents\b", "transparent"),
        (r" : ", ": "),
    ]
)
_LABELS = "|".join(re.escape(k) for k in sorted(LABELS_EN, key=len, reverse=True))
_LABEL = re.compile(rf"(?<![\w'])({_LABELS})(?![\w'])")


def english(text: str) -> str:
    """The engine's French (box names, reasons, totals, who closed a column) in English."""
    out = _LABEL.sub(lambda m: LABELS_EN[m.group(1)], text)
    for pattern, replacement in _EN:
        out = pattern.sub(replacement, out)
    return out


# -- the appliance's English, in French ---------------------------------------------------------
# Whole messages; ``{rest}`` is a message of its own, translated in turn.
_FR_MESSAGES: list[tuple[str, str]] = [
    # what the camera read (device.merge, device.tray)
    (r"(?P<n>\d+) dice read on the tray, (?P<m>\d+) expected(?: \((?P<k>\d+) set aside\))?: "
     r"throw again with every die in the tray",
     "{n} dés lus sur la piste, {m} attendus{aside} : relancez avec tous les dés dans la piste"),
    (r"a (?P<a>d\d+) is on the tray: (?P<r>\w+) is played with (?P<b>d\d+)",
     "un {a} est sur la piste : {r} se joue avec des {b}"),
    (r"the dice could not be read: (?P<rest>.+)", "les dés n'ont pas pu être lus : {rest}"),
    (r"the camera reads the throws: throw the dice in the tray",
     "la caméra lit les jets : lancez les dés dans la piste"),
    (r"no picture from the camera yet: wait for the live picture",
     "pas encore d'image de la caméra : attendez l'image en direct"),
    (r"no camera: there is nothing to calibrate", "pas de caméra : rien à calibrer"),
    (r"the tray could not be calibrated: (?P<rest>.+)",
     "la piste n'a pas pu être calibrée : {rest}"),
    (r"no felt found in the middle of the view", "pas de feutre au milieu de l'image"),
    (r"1 die in view: take it out of the tray, then calibrate",
     "1 dé en vue : sortez-le de la piste, puis calibrez"),
    (r"(?P<n>\d+) dice in view: take them out of the tray, then calibrate",
     "{n} dés en vue : sortez-les de la piste, puis calibrez"),
    (r"die-face model (?P<v>\S+) \((?P<m>[^)]*)\): reads its (?P<c>\d+) check crops "
     r"differently on this machine.*",
     "modèle de lecture {v} : il lit ses {c} images de contrôle autrement sur cette machine ; "
     "ses lectures ne sont pas sûres ici (yamscope check-model)"),
    # the table (device.table, device.table_state)
    (r"no game: start one", "pas de partie : commencez-en une"),
    (r"it is (?P<p>.+)'s turn: the computer plays it", "c'est au tour {de_p} : l'ordinateur joue"),
    (r"the name '(?P<p>.+)' is kept for computer players",
     "le nom « {p} » est réservé aux joueurs ordinateur"),
    (r"nothing to undo", "rien à annuler"),
    (r"the game is over", "la partie est finie"),
    (r"the records could not be written: (?P<rest>.+)",
     "les relevés n'ont pas pu être écrits : {rest}"),
    # the game (scoring.game, the rulebooks)
    (r"(?P<p>.+) has not thrown yet", "{p} n'a pas encore lancé"),
    (r"throw again: the (?P<t>.+) was announced", "relancez : le {t} est annoncé"),
    (r"(?P<p>.+) has thrown (?P<n>\d+) times: write an entry",
     "{p} a lancé {n} fois : inscrivez une case"),
    (r"nothing to keep before the first throw of a turn",
     "rien à garder avant le premier jet d'un tour"),
    (r"kept die (?P<k>\d+) does not exist", "le dé gardé {k} n'existe pas"),
    (r"die (?P<k>\d+) was kept as (?P<a>\S+), not (?P<b>\S+)",
     "le dé {k} a été gardé à {a}, pas {b}"),
    (r"no throw to correct", "aucun jet à corriger"),
    (r"(?P<r>\w+) has no announced extra throw", "{r} n'a pas de jet annoncé"),
    (r"the (?P<t>.+) is already announced for (?P<b>\S+)", "le {t} est déjà annoncé pour {b}"),
    (r"the (?P<t>.+) is announced after throw (?P<n>\d+)", "le {t} s'annonce après le jet {n}"),
    (r"the (?P<t>.+) is never the turn's first throw", "le {t} n'est jamais le premier jet"),
    (r"box (?P<b>\S+) is not open", "la case {b} n'est pas libre"),
    (r"box (?P<b>\S+) cannot be written now", "la case {b} ne peut pas être inscrite maintenant"),
    (r"choose a box", "choisissez une case"),
    (r"bad dice: (?P<rest>.+)", "dés invalides : {rest}"),
    (r"(?P<r>\w+) is played with (?P<n>\d+) dice, not (?P<m>\d+)",
     "{r} se joue avec {n} dés, pas {m}"),
    (r"(?P<d>\S+) is not a face of a (?P<k>d\d+)", "{d} n'est pas une face d'un {k}"),
    (r"(?P<r>\w+) dice have no colour or finish: give plain values 1-6",
     "les dés de {r} n'ont ni couleur ni finition : donnez des valeurs 1 à 6"),
    (r"impossible needs a colour on every die: five red \(r\), five white \(w\)",
     "impossible demande une couleur sur chaque dé : cinq rouges (r), cinq blancs (w)"),
    (r"impossible is played with five red and five white dice, not (?P<n>\d+) red",
     "impossible se joue avec cinq dés rouges et cinq blancs, pas {n} rouges"),
    (r"give a finish \(f, t\) for every die or for none",
     "donnez une finition (f, t) à chaque dé ou à aucun"),
    (r"a sixth throw is announced for a combination, not for plus or moins",
     "le 6e jet s'annonce pour une combinaison, pas pour plus ou moins"),
    (r"(?P<r>\w+) has no box '(?P<b>[^']*)'.*", "{r} n'a pas de case « {b} »"),
    # the page's requests (device.web)
    (r"missing or wrong page token: reload the page",
     "jeton de page absent ou faux : rechargez la page"),
    (r"too many wrong PINs: wait a minute", "trop de PIN faux : attendez une minute"),
    (r"missing or wrong PIN", "PIN absent ou faux"),
    (r"players must be a list of 1 to (?P<n>\d+) players",
     "il faut de 1 à {n} joueurs"),
    (r"a player's name has 1 to (?P<n>\d+) characters",
     "le nom d'un joueur a de 1 à {n} caractères"),
    (r"a player's name has no control characters",
     "le nom d'un joueur n'a pas de caractère de contrôle"),
    (r"two players have the same name", "deux joueurs ont le même nom"),
    (r"a game needs at least one player", "une partie demande au moins un joueur"),
    (r"player names must be non-empty and different",
     "les noms des joueurs doivent être remplis et différents"),
    (r"keep must be a list of at most (?P<n>\d+) positions",
     "« garder » est une liste de {n} positions au plus"),
    (r"keep lists dice positions 0 to (?P<n>\d+)", "« garder » liste des positions de 0 à {n}"),
    (r"keep lists each position once", "« garder » liste chaque position une fois"),
    (r"(?:the )?body must be (?:a )?JSON(?: object)?", "la requête doit être un objet JSON"),
    (r"too many requests.*", "trop de requêtes : attendez un peu"),
    (r"at most (?P<n>\d+) clients follow the table at once",
     "au plus {n} écrans suivent la table à la fois"),
]  # fmt: skip
_FR = [(re.compile(p + r"\Z", re.S), t) for p, t in _FR_MESSAGES]


def _de(name: str) -> str:
    """« de Bruno », « d'Alice »: French elides « de » before a vowel or a mute h."""
    return f"d'{name}" if re.match(r"[aeiouyhàâäéèêëîïôöùûü]", name, re.I) else f"de {name}"


def french(message: str) -> str:
    """An appliance message in French; one not in the catalogue comes back as it is."""
    for pattern, template in _FR:
        match = pattern.match(message)
        if match is None:
            continue
        groups = {k: v or "" for k, v in match.groupdict().items()}
        if "rest" in groups:
            groups["rest"] = french(groups["rest"])
        if "p" in groups:
            groups["de_p"] = _de(groups["p"])
        groups["aside"] = f" ({groups['k']} mis de côté)" if groups.get("k") else ""
        return template.format(**groups)
    return message


def both(message: str | None) -> dict[str, str] | None:
    """A message as the page shows it in either language."""
    return None if message is None else {"en": message, "fr": french(message)}


# -- the new-game options, in both languages ----------------------------------------------------
# name: (French label, French help, English label, English help)
OPTION_WORDS: dict[str, tuple[str, str, str, str]] = {
    "brelan": ("Brelan", "Ce que vaut un brelan : les cinq dés, ou les trois dés identiques.",
               "Three of a kind", "What three of a kind scores: the five dice, or the three "
               "matching dice."),
    "carre": ("Carré", "Ce que vaut un carré : les cinq dés, les quatre dés identiques, ou 40.",
              "Four of a kind", "What four of a kind scores: the five dice, the four matching "
              "dice, or 40."),
    "straights": ("Suites", "Petite = quatre valeurs qui se suivent, grande = cinq ; ou fixes : "
                  "petite = 1-2-3-4-5, grande = 2-3-4-5-6.",
                  "Straights", "Small = four values in a row, large = five; or fixed: small = "
                  "1-2-3-4-5, large = 2-3-4-5-6."),
    "yams_bonus": ("Prime de Yam's", "Points de chaque Yam's de plus, une fois 50 inscrit dans la "
                   "case Yam's.", "Yam's bonus", "Points for each further Yam's once 50 is "
                   "written in the Yam's box."),
    "joker": ("Joker", "Un Yam's de plus sert-il de joker pour le full et les suites, et où ?",
              "Joker", "Whether a further Yam's is a joker for the full house and the "
              "straights, and where."),
    "joker_after_zero": ("Joker après un Yam's barré", "Le joker vaut aussi quand la case Yam's "
                         "a été barrée (Yahtzee officiel).", "Joker after a crossed Yam's",
                         "The joker also works when the Yam's box was crossed with 0 (official "
                         "Yahtzee)."),
    "in_order": ("Dans l'ordre", "Les cases se remplissent de haut en bas.", "In order",
                 "Boxes are filled from top to bottom."),
    "fulls_need_two_values": ("Fulls à deux valeurs", "Grand Full et Full Suprême demandent deux "
                              "valeurs différentes (sinon dix dés identiques les remplissent).",
                              "Full houses need two values", "Grand and Supreme Full House need "
                              "two different values (else ten matching dice fill them too)."),
    "sixth_throw_harmony": ("Harmonies au 6e jet", "Un 6e jet réussi garde ses harmonies (sinon "
                            "il marque les « points légaux »).", "Harmonies on the 6th throw",
                            "A successful 6th throw keeps its harmonies (else it scores the "
                            "plain legal points)."),
    "turns": ("Tours", "Tours joués par chaque joueur au plus (0 : sans limite) ; la partie "
              "finit plus tôt quand toutes les colonnes sont fermées.", "Turns",
              "Turns each player plays at most (0: no limit); the game ends sooner when every "
              "column is closed."),
}  # fmt: skip
# choice value (as text): (French, English)
CHOICE_WORDS: dict[str, tuple[str, str]] = {
    "sum": ("total des cinq dés", "sum of the five dice"),
    "matching": ("dés identiques seulement", "matching dice only"),
    "40": ("40 points", "40 points"),
    "runs": ("valeurs qui se suivent", "values in a row"),
    "fixed": ("fixes", "fixed"),
    "0": ("aucune", "none"),
    "100": ("100 points", "100 points"),
    "none": ("pas de joker", "no joker"),
    "free": ("libre, à pleine valeur", "free, at full value"),
    "forced": ("imposé (Yahtzee officiel)", "forced (official Yahtzee)"),
    "verhoeff": ("au choix, pleine valeur une fois la case du haut remplie",
                 "free choice, full value once the upper box is written"),
}  # fmt: skip


def option_words(name: str, help_text: str, choices: list[Any] | None) -> dict[str, Any]:
    """What the new-game form shows of an option, per language (its name and help as they
    are where the catalogue has none)."""
    fr_label, fr_help, en_label, en_help = OPTION_WORDS.get(
        name, (name.replace("_", " "), help_text, name.replace("_", " "), help_text)
    )
    out: dict[str, Any] = {
        "label": fr_label,
        "help": fr_help,
        "label_en": en_label,
        "help_en": en_help,
    }
    if choices is not None:
        out["choice_labels"] = [CHOICE_WORDS.get(str(c), (str(c), str(c)))[0] for c in choices]
        out["choice_labels_en"] = [CHOICE_WORDS.get(str(c), (str(c), str(c)))[1] for c in choices]
    return out


def with_english(item: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """``item`` with ``KEY_en`` beside each of ``keys`` it has (a text, or None)."""
    out = dict(item)
    for key in keys:
        value = item.get(key)
        if isinstance(value, str):
            out[f"{key}_en"] = english(value)
    return out
