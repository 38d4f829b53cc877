"""Dice fairness: does a die (or a set of dice) of this table show some face too often?

What it learns from: only dice the players confirmed, that is the final dice of a throw
the turn's entry was written from, or of a throw a player corrected (the store counts
them as they are confirmed, never twice), and only real dice: read by the camera or typed
in, not the generator's. A die set aside is not thrown again and is not counted.

Per die (its place among the game's dice, with its look: in Yams impossible a place is a
die of one colour and finish), per die set (every die of the same look), and per kind
(the table's whole d10 or d6 set): face counts, Pearson's chi-square against equal
chances, its p-value and the number of throws. The verdict names the die that strays
most once every face is expected ENOUGH times; with several dice tested at once, a p-value
must stay under LEVEL even multiplied by the number of dice tested (Bonferroni), so that
ten fair dice do not make a false alarm one evening in ten.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from device.chisquare import chi_square
from device.storage import Store

ENOUGH = 10  # throws expected per face before a die is judged
LEVEL = 0.01
COLOURS = {"r": ("rouge", "red"), "w": ("blanc", "white")}
FINISHES = {"f": ("givré", "frosted"), "t": ("transparent", "clear")}
NBSP = "\u202f"  # French thousands separator


def _look_words(look: str, lang: int) -> str:
    words = [COLOURS[c][lang] for c in look if c in COLOURS]
    words += [FINISHES[c][lang] for c in look if c in FINISHES]
    return " ".join(words)


def _names(kind: str, place: int | None, look: str | None) -> dict[str, str]:
    """How a group of dice is said, in French and English."""
    if place is not None:
        words = [_look_words(look or "", i) for i in (0, 1)]
        fr = f"le dé n°{place + 1}" + (f" ({words[0]})" if words[0] else "")
        en = f"die no. {place + 1}" + (f" ({words[1]})" if words[1] else "")
        return {"fr": fr, "en": en}
    if look:
        fr_look, en_look = _look_words(look, 0), _look_words(look, 1)
        plural = " ".join(w if w.endswith("s") else w + "s" for w in fr_look.split())
        return {"fr": f"les dés {plural}", "en": f"the {en_look} dice"}
    return {"fr": f"l'ensemble des {kind}", "en": f"the whole {kind} set"}


def _group(kind: str, place: int | None, look: str | None, counts: list[int]) -> dict[str, Any]:
    statistic, df, p = chi_square(counts)
    n = sum(counts)
    expected = n / len(counts) if counts else 0
    stray = max(range(len(counts)), key=lambda i: abs(counts[i] - expected)) if n else 0
    return {
        "kind": kind,
        "place": place,
        "look": look,
        "name": _names(kind, place, look),
        "counts": counts,
        "throws": n,
        "chi2": round(statistic, 3),
        "df": df,
        "p": p,
        "enough": expected >= ENOUGH,
        "stray": {"face": stray + 1, "often": counts[stray] > expected} if n else None,
    }


def fairness(store: Store, table: str | None) -> dict[str, Any]:
    """Every die, die set and kind of ``table``'s dice, and the verdict in words."""
    faces: dict[tuple[str, int, str], dict[int, int]] = defaultdict(dict)
    for _, kind, place, look, value, n in store.face_counts(table):
        key = (kind, place, look)
        faces[key][value] = faces[key].get(value, 0) + n
    groups: list[dict[str, Any]] = []
    for kind in ("d10", "d6"):
        top = 10 if kind == "d10" else 6
        mine = {k: v for k, v in faces.items() if k[0] == kind}
        if not mine:
            continue
        by_look: dict[str, list[int]] = defaultdict(lambda top=top: [0] * top)
        whole = [0] * top
        for (_, place, look), values in sorted(mine.items()):
            counts = [values.get(v, 0) for v in range(1, top + 1)]
            groups.append(_group(kind, place, look, counts))
            for i, c in enumerate(counts):
                by_look[look][i] += c
                whole[i] += c
        if len(by_look) > 1 or "" not in by_look:
            groups += [_group(kind, None, look, c) for look, c in sorted(by_look.items())]
        groups.append(_group(kind, None, None, whole))
    return {"table": table, "level": LEVEL, "enough": ENOUGH, "groups": groups,
            "said": verdict(groups)}  # fmt: skip


def number(value: float, lang: str, digits: int = 0) -> str:
    """A number as the language writes it (French: 1 840 and 0,002)."""
    text = f"{value:,.{digits}f}"
    if lang == "fr":
        text = text.replace(",", NBSP).replace(".", ",")
    return text


def p_text(p: float, lang: str) -> str:
    if p < 0.001:
        return "p < " + number(0.001, lang, 3)
    return "p = " + number(p, lang, 3 if p < 0.01 else 2)


def verdict(groups: list[dict[str, Any]]) -> dict[str, str]:
    """One line in each language: the die that strays, or that none does, or how many
    more throws are needed."""
    judged = [g for g in groups if g["enough"]]
    if not judged:
        most = max((g["throws"] for g in groups), default=0)
        need = max((ENOUGH * len(g["counts"]) for g in groups), default=ENOUGH * 6)
        return {
            "fr": f"Pas encore assez de jets confirmés pour juger les dés ({number(most, 'fr')} "
            f"sur les {number(need, 'fr')} qu'il faut à chaque dé).",
            "en": f"Not enough confirmed throws yet to judge the dice ({number(most, 'en')} of "
            f"the {number(need, 'en')} each die needs).",
        }
    worst = min(judged, key=lambda g: g["p"])
    stray = worst["stray"]
    p, n = worst["p"], worst["throws"]
    if p * len(judged) < LEVEL:
        fr_how = "trop souvent" if stray["often"] else "trop rarement"
        en_how = "too often" if stray["often"] else "too rarely"
        shows = "sortent" if worst["place"] is None and worst["look"] else "sort"
        return {
            "fr": f"{worst['name']['fr'][0].upper()}{worst['name']['fr'][1:]} {shows} le "
            f"{stray['face']} {fr_how} : {p_text(p, 'fr')} sur {number(n, 'fr')} jets.",
            "en": f"{worst['name']['en'][0].upper()}{worst['name']['en'][1:]} "
            f"{'show' if shows == 'sortent' else 'shows'} "
            f"{stray['face']} {en_how}: {p_text(p, 'en')} over {number(n, 'en')} throws.",
        }
    return {
        "fr": f"Aucun dé ne s'écarte du hasard (le plus éloigné, {worst['name']['fr']} : "
        f"{p_text(p, 'fr')} sur {number(n, 'fr')} jets).",
        "en": f"No die strays from chance (the furthest, {worst['name']['en']}: "
        f"{p_text(p, 'en')} over {number(n, 'en')} throws).",
    }
