"""The settings page's file: written with only what differs from the defaults, validated
whole before anything is written, and read back by ``yamscope serve``."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from device.config import ConfigError, load_config
from device.settings import change, config_file, fields, load_for_serve, masked


def test_only_what_differs_from_the_defaults_is_written(tmp_path: Path) -> None:
    path = tmp_path / "yamscope.toml"
    saved = change(path, {"table.language": "en", "table.computer_pace": 0.5})
    assert saved.changed == ("table.language", "table.computer_pace")
    assert saved.restart == ("table.language",)  # the pace is taken at once
    text = path.read_text(encoding="utf-8")
    keys = [line.split(" =")[0] for line in text.splitlines() if " = " in line and line[0] != "#"]
    assert keys == ["language", "computer_pace"]
    assert load_config(path).table.language == "en"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it may hold the PIN

    # back to the default: the key leaves the file, the other stays
    again = change(path, {"table.language": None})
    assert again.changed == ("table.language",)
    assert "language" not in path.read_text(encoding="utf-8")
    assert load_config(path).table.computer_pace == 0.5
    assert (tmp_path / "yamscope.toml.previous").read_text(encoding="utf-8") == text


def test_a_hand_edit_made_meanwhile_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "yamscope.toml"
    path.write_text('[table]\nname = "Table du fond"\n', encoding="utf-8")
    change(path, {"server.port": 8700})
    config = load_config(path)
    assert (config.table.name, config.server.port) == ("Table du fond", 8700)


def test_a_refused_change_names_every_problem_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "yamscope.toml"
    path.write_text("[server]\nport = 8700\n", encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        change(path, {"server.port": 70000, "table.rules": "poker", "server.host": "0.0.0.0"})
    said = "\n".join(refused.value.problems)
    assert "server.port: must be 1-65535" in said
    assert "table.rules: must be one of" in said
    assert "server.pin: required when host is not loopback" in said
    assert path.read_text(encoding="utf-8") == "[server]\nport = 8700\n"
    with pytest.raises(ConfigError, match="not a setting this page changes"):
        change(path, {"table.options": {"x": 1}})
    assert not (tmp_path / "yamscope.toml.part").exists()


def test_the_pin_is_never_shown_and_a_database_password_is_hidden(tmp_path: Path) -> None:
    path = tmp_path / "yamscope.toml"
    change(path, {"server.pin": "0427", "storage.url": "postgresql://club:s3cret@db/yams"})
    shown = {f.key: f for f in fields(load_config(path))}
    assert shown["server.pin"].value is True and shown["server.pin"].secret
    assert shown["storage.url"].value == "postgresql://club:****@db/yams"
    assert "s3cret" not in repr(list(shown.values()))
    # sent back as shown, the address is left as it was
    change(path, {"storage.url": masked("postgresql://club:s3cret@db/yams"), "server.port": 9000})
    assert load_config(path).storage.url == "postgresql://club:s3cret@db/yams"


def test_serve_reads_the_page_file_when_no_config_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YAMSCOPE_DATA_DIR", str(tmp_path))
    assert config_file(None) == tmp_path / "yamscope.toml"
    assert load_for_serve(None).table.language == "fr"  # no file yet: the defaults
    change(config_file(None), {"table.language": "en"})
    assert load_for_serve(None).table.language == "en"
    given = tmp_path / "other.toml"
    with pytest.raises(ConfigError, match="no such file"):
        load_for_serve(given)  # --config must exist


def test_every_key_has_a_kind_the_page_can_ask() -> None:
    shown = {f.key: f for f in fields(load_config(None))}
    assert shown["table.language"].kind == "choice" and shown["table.language"].choices == (
        "fr",
        "en",
    )
    assert shown["table.rules"].choices == ("impossible", "yams", "yahtzee", "cameroun")
    assert shown["server.port"].kind == "int" and shown["camera.fps"].kind == "float"
    assert shown["storage.snapshots"].kind == "bool" and shown["storage.snapshots"].live
    assert (
        shown["camera.field_of_view"].kind == "float"
        and shown["camera.field_of_view"].value is None
    )
    assert "table.options" not in shown
