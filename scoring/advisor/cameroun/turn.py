"""One Cameroun turn solved exactly: two free throws, then an optional announced third.

The column model (``cameroun_model``) says what each outcome of the turn is worth: writing
a roll in a column, or the result of a third throw announced for a column (its success,
or its failure: nothing for a number column, the column crossed for everyone for P, G,
F, Q). Given those utilities, the best play is a small expectimax over multisets:

* after throw 2, a roll is worth the better of its best entry and its best announcement
  (column X, keep K), whose value is exactly ``transition[K] @ announced_utility[:, X]``:
  announcing fixes the target, so there is nothing left to choose after the throw;
* after throw 1, the better of writing now and the best keep, each keep worth the mean
  of the throw-2 values over the re-roll.

Stopping after throw 1 is offered as its own option ("write now"); keeping all five dice
is a keep like any other (it leads to throw 2 with the same dice, where the third throw
may be announced).

Beside the values, the policy is followed forward to give, for each option, the chance
that each column receives points this turn, the chance that it is crossed by a failed
announcement, and the expected points written.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.advisor.cameroun.dice import Dice, dice

TIE = 1e-12  # an option must beat the simpler one by more than this to be preferred


@dataclass(frozen=True)
class Outcome:
    """What one option leads to: its value and, following the best play after it,
    P(points written in each column), P(each column crossed) and the expected points."""

    value: float
    fill: np.ndarray  # (B,)
    crossed: np.ndarray  # (B,)
    points: float


@dataclass(frozen=True)
class TurnSolution:
    """The best play of one turn, for every roll at every stage.

    ``write``: (252,) value of the best entry; ``write_box``: its column.
    ``announce``: (462, B) value of announcing each column with each keep (-inf: closed).
    ``after2``: (252,) value of a roll after throw 2 (best entry or best announcement).
    ``keep2``: (462,) value of a keep before throw 2.
    ``after1``: (252,) value of a roll after throw 1.
    """

    d: Dice
    write: np.ndarray
    write_box: np.ndarray
    write_points: np.ndarray
    announce: np.ndarray
    success: np.ndarray  # (462, B) P(an announcement for X with keep K succeeds)
    ann_points: np.ndarray  # (462, B) expected points written by that announcement
    figures: np.ndarray  # (B,) bool: a failed announcement crosses the column
    after2: np.ndarray
    ann_choice: np.ndarray  # (252, 2) best (keep, column) to announce, per roll
    announces: np.ndarray  # (252,) bool: after throw 2, announcing beats writing
    keep2: np.ndarray
    after1: np.ndarray
    keep1_choice: np.ndarray  # (252,) best keep after throw 1
    stops: np.ndarray  # (252,) bool: after throw 1, writing now is at least as good
    feat2: np.ndarray  # (252, 2B + 1) fill, crossed, points after throw 2 with best play
    feat_keep2: np.ndarray  # (462, 2B + 1) the same, expected over the re-roll of a keep

    @property
    def boxes(self) -> int:
        return self.announce.shape[1]

    def split(self, feat: np.ndarray, value: float) -> Outcome:
        b = self.boxes
        return Outcome(value, feat[:b], feat[b : 2 * b], float(feat[2 * b]))

    def write_outcome(self, box: int, value: float, points: int, crossed: bool = False) -> Outcome:
        """Writing ``points`` in ``box`` now (``crossed``: a failed announcement crosses it)."""
        feat = np.zeros(2 * self.boxes + 1)
        if points > 0:
            feat[box] = 1.0
        if crossed:
            feat[self.boxes + box] = 1.0
        feat[2 * self.boxes] = points
        return self.split(feat, value)

    def announce_outcome(self, keep: int, box: int) -> Outcome:
        feat = np.zeros(2 * self.boxes + 1)
        p = float(self.success[keep, box])
        feat[box] = p
        if self.figures[box]:
            feat[self.boxes + box] = 1.0 - p
        feat[2 * self.boxes] = float(self.ann_points[keep, box])
        return self.split(feat, float(self.announce[keep, box]))

    def keep_outcome(self, keep: int) -> Outcome:
        return self.split(self.feat_keep2[keep], float(self.keep2[keep]))

    def write_features(self) -> np.ndarray:
        """(252, 2B + 1) fill, crossed, points of writing each roll in its best column."""
        b = self.boxes
        rows = np.arange(len(self.write))
        feat = np.zeros((len(rows), 2 * b + 1))
        hit = self.write_points > 0
        feat[rows[hit], self.write_box[hit]] = 1.0
        feat[:, 2 * b] = self.write_points
        return feat

    def before_throw(self) -> Outcome:
        """The turn before its first throw, played at its best."""
        feat1 = np.where(
            self.stops[:, None], self.write_features(), self.feat_keep2[self.keep1_choice]
        )
        start = self.d.transition[self.d.empty]
        return self.split(start @ feat1, float(start @ self.after1))


def solve_turn(
    write_util: np.ndarray,
    write_points: np.ndarray,
    ann_util: np.ndarray,
    ann_points: np.ndarray,
    success: np.ndarray,
    is_open: np.ndarray,
    figures: np.ndarray,
) -> TurnSolution:
    """Solve a turn from the utilities of its outcomes.

    ``write_util``/``write_points``: (252, B) value and points of writing each roll in each
    column (closed columns are ignored). ``ann_util``/``ann_points``/``success``: (252, B)
    the same for the result of an announced third throw, and whether it succeeded.
    ``figures``: (B,) the columns a failed announcement crosses.
    """
    d = dice()
    nb = write_util.shape[1]
    cols = np.flatnonzero(is_open)
    if not len(cols):
        raise ValueError("no open column: the game is over")

    write, write_box, wpts = _best_write(write_util, write_points, is_open)
    rows = np.arange(len(write))

    announce = np.full((len(d.keeps), nb), -np.inf)
    announce[:, cols] = d.expect(np.where(is_open, ann_util, 0.0)[:, cols])
    succ = d.expect((success & is_open).astype(float))
    apts = d.expect(np.where(success & is_open, ann_points, 0).astype(float))

    ann_keep, ann_box, announces, after2 = _after_throw2(d, announce, write)
    feat2 = _features2(write_box, wpts, announces, ann_keep, ann_box, succ, apts, figures)

    keep2 = d.expect(after2)
    feat_keep2 = d.expect(feat2)
    inner = keep2[d.inside]  # (252, 32)
    best_k = np.argmax(inner, axis=1)
    keep1_choice = d.inside[rows, best_k]
    best_keep = inner[rows, best_k]
    stops = write + TIE >= best_keep
    after1 = np.where(stops, write, best_keep)

    return TurnSolution(
        d=d,
        write=write,
        write_box=write_box,
        write_points=wpts,
        announce=announce,
        success=succ,
        ann_points=apts,
        figures=figures,
        after2=after2,
        ann_choice=np.stack([ann_keep, ann_box], axis=1),
        announces=announces,
        keep2=keep2,
        after1=after1,
        keep1_choice=keep1_choice,
        stops=stops,
        feat2=feat2,
        feat_keep2=feat_keep2,
    )


def _best_write(
    write_util: np.ndarray, write_points: np.ndarray, is_open: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each roll's best open column to write it in: its value, the column, its points."""
    w = np.where(is_open, write_util, -np.inf)
    write_box = np.argmax(w, axis=1)
    rows = np.arange(len(w))
    return w[rows, write_box], write_box, write_points[rows, write_box]


def _after_throw2(
    d: Dice, announce: np.ndarray, write: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """After throw 2: the best announcement (a keep inside the roll, any open column)
    against writing; (its keep, its column, whether it wins, the value either way)."""
    nb = announce.shape[1]
    rows = np.arange(len(write))
    inside = announce[d.inside]  # (252, 32, B)
    flat = inside.reshape(len(rows), -1)
    best_flat = np.argmax(flat, axis=1)
    best_ann = flat[rows, best_flat]
    ann_keep = d.inside[rows, best_flat // nb]
    ann_box = best_flat % nb
    announces = best_ann > write + TIE
    return ann_keep, ann_box, announces, np.where(announces, best_ann, write)


def _features2(
    write_box: np.ndarray,
    wpts: np.ndarray,
    announces: np.ndarray,
    ann_keep: np.ndarray,
    ann_box: np.ndarray,
    succ: np.ndarray,
    apts: np.ndarray,
    figures: np.ndarray,
) -> np.ndarray:
    """(252, 2B+1) after throw 2's choice: the chance each column is filled, each figure
    crossed, and the points expected."""
    b = succ.shape[1]
    rows = np.arange(len(wpts))
    feat2 = np.zeros((len(rows), 2 * b + 1))
    writes = ~announces
    hit = writes & (wpts > 0)
    feat2[rows[hit], write_box[hit]] = 1.0
    feat2[writes, 2 * b] = wpts[writes]
    a_rows = rows[announces]
    k, x = ann_keep[announces], ann_box[announces]
    p = succ[k, x]
    feat2[a_rows, x] = p
    fig = figures[x]
    feat2[a_rows[fig], b + x[fig]] = 1.0 - p[fig]
    feat2[a_rows, 2 * b] = apts[k, x]
    return feat2
