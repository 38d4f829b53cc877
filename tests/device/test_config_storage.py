"""The configuration of where the records go: a file, or a club's PostgreSQL address, and
this table's name in it."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from device.cli import main
from device.config import Config, ConfigError, load_config
from device.serve import records_target


def test_the_records_default_to_the_data_folder_and_the_name_to_the_host() -> None:
    config = Config()
    assert config.storage.url is None
    assert config.storage.records() == config.storage.data_dir / "yamscope.db"
    assert config.table.table_name() == socket.gethostname()


def test_a_file_path_is_taken_from_the_configurations_folder(tmp_path: Path) -> None:
    path = tmp_path / "etc" / "yamscope.toml"
    path.parent.mkdir()
    path.write_text('[storage]\nurl = "records/club.db"\n[table]\nname = "Salon"\n')
    config = load_config(path)
    assert config.storage.records() == tmp_path / "etc" / "records" / "club.db"
    assert config.table.table_name() == "Salon"
    assert records_target(config, None) == tmp_path / "etc" / "records" / "club.db"
    assert records_target(config, "postgresql://u@h/db") == "postgresql://u@h/db"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[storage]\nurl = "mysql://club/yamscope"', 'storage.url: must be a file path or a '
         'postgresql:// address, got mysql://…'),
        ('[storage]\nurl = ""', "storage.url: must not be empty"),
        ('[table]\nname = "' + "x" * 41 + '"', "table.name:"),
    ],
)  # fmt: skip
def test_bad_storage_settings_are_refused_by_key(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert any(p.startswith(said) for p in caught.value.problems), caught.value.problems


def test_validate_config_never_prints_the_databases_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[storage]\nurl = "postgresql://club:s3cret@club.local:5433/yamscope"\n')
    assert main(["validate-config", str(path)]) == 0
    out = capsys.readouterr().out
    assert 'storage.url = "postgresql://club@club.local:5433/yamscope"' in out
    assert "s3cret" not in out
