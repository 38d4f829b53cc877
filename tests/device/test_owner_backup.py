"""Backup and restore of the records: a restore checks the file before it replaces
anything, and a refused file leaves every record as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from device.backup import BadRestore, backup_file, receive, restore
from device.storage import Store
from scoring.game import Game


def records(path: Path, players: list[str]) -> Store:
    store = Store(path)
    store.create(Game("yams", players))
    return store


def dump(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return list(db.iterdump())
    finally:
        db.close()


def names(store: Store) -> list[list[str]]:
    return [g["players"] for g in store.games()]


def test_a_backup_is_a_whole_copy(tmp_path: Path) -> None:
    store = records(tmp_path / "yamscope.db", ["Ana", "Bea"])
    copy = backup_file(store)
    assert copy.parent == tmp_path and copy.name.startswith(".backup-")
    assert names(Store(copy)) == [["Ana", "Bea"]]


def test_a_checked_backup_replaces_the_records(tmp_path: Path) -> None:
    old = records(tmp_path / "old.db", ["Zoé"])
    upload = backup_file(old)
    store = records(tmp_path / "yamscope.db", ["Ana"])
    done = restore(store, upload)
    assert done["games"] == 1 and not upload.exists()
    assert names(store) == [["Zoé"]]  # the live connection reads the restored records
    kept = Path(done["previous"])
    assert kept.name == "yamscope.db.before-restore" and names(Store(kept)) == [["Ana"]]


def refused(tmp_path: Path, content: bytes | None = None, build=None) -> str:
    store = records(tmp_path / "yamscope.db", ["Ana"])
    upload = tmp_path / "upload.db"
    if build is not None:
        build(upload)
    else:
        upload.write_bytes(content or b"")
    before = dump(tmp_path / "yamscope.db")
    with pytest.raises(BadRestore) as exc:
        restore(store, upload)
    assert names(store) == [["Ana"]]
    assert not (tmp_path / "yamscope.db.before-restore").exists()
    store.close()
    assert dump(tmp_path / "yamscope.db") == before  # every row and table as it was
    return str(exc.value)


def test_not_an_sqlite_file_is_refused(tmp_path: Path) -> None:
    assert "not an SQLite file" in refused(tmp_path, b"PK\x03\x04 a zip, not records")


def test_an_empty_sqlite_file_is_refused(tmp_path: Path) -> None:
    def empty(path: Path) -> None:
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE t (x)")
        db.execute("DROP TABLE t")  # a whole SQLite file, with nothing in it
        db.commit()
        db.close()

    assert "not yamscope's records" in refused(tmp_path, build=empty)


def test_another_programs_database_is_refused(tmp_path: Path) -> None:
    def other(path: Path) -> None:
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE recipes (name TEXT)")
        db.commit()
        db.close()

    assert "another program" in refused(tmp_path, build=other)


def test_records_of_a_newer_yamscope_are_refused(tmp_path: Path) -> None:
    def newer(path: Path) -> None:
        records(path, ["Eve"]).close()
        db = sqlite3.connect(path)
        db.execute("PRAGMA user_version = 999")
        db.close()

    assert "newer yamscope" in refused(tmp_path, build=newer)


def test_a_damaged_file_is_refused(tmp_path: Path) -> None:
    def damaged(path: Path) -> None:
        store = records(path, ["Eve"])
        for i in range(200):
            store.create(Game("yams", [f"P{i}"]))
        store.close()
        data = bytearray(path.read_bytes())
        data[4096 * 2 : 4096 * 4] = b"\xff" * 8192  # two pages of the tables overwritten
        path.write_bytes(bytes(data))

    said = refused(tmp_path, build=damaged)
    assert "damaged" in said or "malformed" in said or "not a readable" in said


def test_an_upload_too_large_is_cut_off(tmp_path: Path) -> None:
    with pytest.raises(BadRestore, match="larger than"):
        receive(iter([b"x" * 1000] * 3), tmp_path, limit=2500)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(BadRestore, match="empty"):
        receive(iter([]), tmp_path)
