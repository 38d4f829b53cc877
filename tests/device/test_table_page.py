"""The table session behind the page's newer parts: a computer's turn at a person's pace,
and « Passer »; corrections after an undo; the undo of a correction."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from device.store import Store
from device.table import TableSession
from scoring.entries import RulesError


@pytest.fixture
def session(tmp_path: Path) -> Iterator[TableSession]:
    s = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(3), cache_dir=tmp_path, advice=False
    )
    yield s
    s.close()


def test_skip_is_refused_when_no_computer_plays(session: TableSession) -> None:
    session.new_game("yams", None, ["Anne"])
    with pytest.raises(RulesError, match="no computer is playing"):
        session.skip()


def test_a_computer_pauses_between_moves_until_skipped(tmp_path: Path) -> None:
    session = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(3), cache_dir=tmp_path, advice=False,
        computer_pace=60.0,
    )  # fmt: skip
    try:
        with session.subscribe() as listener:
            session.new_game("yams", None, ["facile", "Anne"])
            state = listener.next(timeout=10)  # the computer's first throw, then a minute's pause
            while state is not None and not (state["game"] or {}).get("throw"):
                state = listener.next(timeout=10)
        assert state is not None, "the computer never threw"
        assert not session.wait_idle(timeout=0.5)  # it waits, with its turn not over
        assert session.state()["game"]["player"] == "Ordi facile"
        session.skip()
        assert session.wait_idle(timeout=10)
        assert session.state()["game"]["player"] == "Anne"
    finally:
        session.close()
