"""The configuration file: defaults, every check with the line a user reads, the commented
TOML it writes back, and ``yamscope validate-config``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs
import pytest
from pydantic import BaseModel

from device.cli import main
from device.config import (
    Advisor,
    Camera,
    Config,
    ConfigError,
    Server,
    Storage,
    Table,
    load_config,
    parse_camera_source,
)

if TYPE_CHECKING:
    from conftest import Run

ROOT = Path(__file__).resolve().parents[2]
SECTIONS: list[type[BaseModel]] = [Config, Server, Storage, Camera, Table, Advisor]


def write(tmp_path: Path, text: str, name: str = "yamscope.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text))
    return caught.value.problems


@pytest.fixture(autouse=True)
def _platform_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default folders as on a plain Linux account, whatever this shell exports."""
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)


# -- defaults --------------------------------------------------------------------------------------
def test_no_file_gives_the_documented_defaults() -> None:
    config = load_config(None)
    assert config == Config()
    assert (config.server.host, config.server.port, config.server.pin) == ("127.0.0.1", 8600, None)
    assert config.storage.data_dir == platformdirs.user_data_path("yamscope")
    assert config.storage.snapshots is True
    cam = config.camera
    assert (cam.source, cam.width, cam.height, cam.lores_width, cam.lores_height) == (
        "auto",
        1280,
        960,
        320,
        240,
    )
    assert cam.watchdog_seconds == 5 and cam.lock_exposure_after_calibration is True
    assert (config.table.rules, config.table.options) == ("impossible", {})
    assert (config.table.language, config.table.max_players) == ("fr", 6)
    assert config.advisor.cache_dir == platformdirs.user_cache_path("yamscope")
    assert config.changes() == []


@pytest.mark.parametrize("model", SECTIONS, ids=lambda m: m.__name__)
def test_every_key_has_a_default_and_a_description_and_refuses_strangers(
    model: type[BaseModel],
) -> None:
    assert model.model_config.get("extra") == "forbid"
    for name, field in model.model_fields.items():
        assert not field.is_required(), name
        assert field.description and len(field.description) > 10, name


def test_an_empty_file_or_one_key_keeps_every_other_default(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "")) == Config()
    config = load_config(write(tmp_path, "[camera]\nfps = 30\n"))
    assert config.camera.fps == 30.0
    assert config.model_copy(update={"camera": Camera()}) == Config()
    assert config.changes() == [("camera.fps", 30.0, 15.0)]


# -- each check, with the line the user reads ------------------------------------------------------
BAD = [
    ("[server]\nport = 70000", "server.port: must be 1-65535, got 70000"),
    ("[server]\nport = 0", "server.port: must be 1-65535, got 0"),
    ('[server]\nport = "8600"', 'server.port: must be a whole number, got "8600"'),
    ('[server]\nhost = ""', "server.host: must not be empty"),
    ('[server]\npin = "12a4"', 'server.pin: must be 4 to 8 digits, got "12a4"'),
    ('[server]\npin = "123"', 'server.pin: must be 4 to 8 digits, got "123"'),
    ('[server]\npin = "123456789"', 'server.pin: must be 4 to 8 digits, got "123456789"'),
    ("[server]\npin = 427", 'server.pin: must be in quotes, e.g. pin = "0427"'),
    (
        '[server]\nhost = "0.0.0.0"',
        'server.pin: required when host is not loopback (host = "0.0.0.0")',
    ),
    ('[server]\nhost = "192.168.1.20"', "server.pin: required when host is not loopback"),
    ('[storage]\nsnapshots = "yes"', 'storage.snapshots: must be true or false, got "yes"'),
    ('[storage]\ndata_dir = ""', "storage.data_dir: must not be empty"),
    ("[storage]\ndata_dir = 5", "storage.data_dir: must be a path in quotes, got 5"),
    ('[camera]\nsource = "usb"', 'camera.source: must be "auto", "simulated", "picamera2", '),
    ('[camera]\nsource = "opencv:x"', "camera.source: opencv:<index> takes a camera number"),
    ('[camera]\nsource = "opencv:-1"', "camera.source: opencv:<index> takes a camera number"),
    ('[camera]\nsource = "replay:"', "camera.source: replay:<path> needs the path"),
    ('[camera]\nsource = "replay:gone.mp4"', "camera.source: replay: no such file or folder"),
    ("[camera]\nwidth = 1279", "camera.width: must be even"),
    ("[camera]\nheight = 8", "camera.height: must be 16-8192, got 8"),
    ("[camera]\nlores_width = 1600", "camera.lores_width: must not exceed width (1280), got 1600"),
    ("[camera]\nheight = 200", "camera.lores_height: must not exceed height (200), got 240"),
    ("[camera]\nfps = 0", "camera.fps: must be 1-120, got 0"),
    ('[camera]\nfps = "fast"', 'camera.fps: must be a number, got "fast"'),
    ("[camera]\nwatchdog_seconds = 0.5", "camera.watchdog_seconds: must be 1-600, got 0.5"),
    (
        "[camera]\nlock_exposure_after_calibration = 1",
        "camera.lock_exposure_after_calibration: must be true or false, got 1",
    ),
    ('[table]\nrules = "poker"', "table.rules: must be one of impossible, yams, yahtzee, cameroun"),
    ('[table]\nlanguage = "de"', 'table.language: must be "fr" or "en", got "de"'),
    ("[table]\nmax_players = 0", "table.max_players: must be 1-12, got 0"),
    ("[table]\nmax_players = 13", "table.max_players: must be 1-12, got 13"),
    ("[table]\noptions = 3", "table.options: must be a table of keys, got 3"),
    ("server = 5", "server: must be a table ([server]), got 5"),
    ("[server]\nprot = 8600", "server.prot: unknown key (did you mean port?) (known: host, "),
    ("[srever]\nport = 8600", "srever: unknown section (did you mean server?)"),
    ("[table]\nlanguages = 'fr'", "table.languages: unknown key (did you mean language?)"),
]


@pytest.mark.parametrize(("text", "expected"), BAD, ids=[e.split(":")[0] for _, e in BAD])
def test_each_problem_is_one_line_naming_its_key(tmp_path: Path, text: str, expected: str) -> None:
    problems = problems_of(tmp_path, text)
    assert len(problems) == 1, problems
    assert problems[0].startswith(expected), problems[0]


@pytest.mark.parametrize(
    ("text", "taken"),
    [
        ('[server]\nhost = "localhost"', {"server.host": "localhost"}),
        ('[server]\nhost = "::1"', {"server.host": "::1"}),
        ('[server]\nhost = "127.0.0.2"', {"server.host": "127.0.0.2", "server.pin": None}),
        ('[server]\nhost = "0.0.0.0"\npin = "0427"',
         {"server.host": "0.0.0.0", "server.pin": "0427"}),
        ('[server]\npin = "12345678"', {"server.pin": "12345678"}),
        ('[camera]\nsource = "simulated"', {"camera.source": "simulated"}),
        ('[camera]\nsource = "picamera2"', {"camera.source": "picamera2"}),
        ('[camera]\nsource = "opencv:2"', {"camera.source": "opencv:2"}),
        ("[camera]\nwidth = 640\nheight = 480\nlores_width = 640\nlores_height = 480",
         {"camera.width": 640, "camera.height": 480, "camera.lores_width": 640,
          "camera.lores_height": 480}),
        ('[table]\nlanguage = "en"\nmax_players = 12',
         {"table.language": "en", "table.max_players": 12}),
    ],
)  # fmt: skip
def test_good_values_are_taken(tmp_path: Path, text: str, taken: dict[str, object]) -> None:
    config = load_config(write(tmp_path, text))
    for key, value in taken.items():
        section, name = key.split(".")
        assert getattr(getattr(config, section), name) == value, key
    assert {key for key, _, _ in config.changes()} <= set(taken)  # and nothing else moved


@pytest.mark.parametrize(
    "text",
    ["x = " + "[" * 3000 + "]" * 3000, "x = " + "{a = " * 3000 + "1" + "}" * 3000],
    ids=["arrays", "inline-tables"],
)
def test_a_file_nested_too_deeply_is_one_problem(tmp_path: Path, text: str) -> None:
    assert problems_of(tmp_path, text) == ["nests tables or lists too deeply to be a configuration"]


def test_a_fifo_or_a_device_is_not_read_as_a_configuration(tmp_path: Path) -> None:
    pipe = tmp_path / "yamscope.toml"
    os.mkfifo(pipe)  # reading it would wait for a writer for ever
    for path in (pipe, Path("/dev/zero")):
        with pytest.raises(ConfigError) as caught:
            load_config(path)
        assert caught.value.problems == ["is not a regular file"]


def test_validate_config_on_a_nested_file_is_one_line(run: Run, tmp_path: Path) -> None:
    path = write(tmp_path, "x = " + "[" * 3000 + "]" * 3000)
    r = run("validate-config", str(path), timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "too deeply" in r.stderr


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    text = (
        '[server]\nhost = "0.0.0.0"\nport = 70000\n'
        "[camera]\nwidth = 1279\nlores_height = 2000\n"
        '[table]\nrules = "yams"\nlanguage = "de"\n'
        '[table.options]\ncarre = 40\nbrelan = "all"\nbogus = 1\n'
        "[nonsense]\n"
    )
    problems = problems_of(tmp_path, text)
    keys = [p.split(":")[0] for p in problems]
    assert keys == [
        "server.port",
        "server.pin",
        "camera.width",
        "camera.lores_height",
        "table.language",
        "table.options.carre",
        "table.options.brelan",
        "table.options.bogus",
        "nonsense",
    ]


# -- rulebook options, checked by the rulebook -----------------------------------------------------
@pytest.mark.parametrize(
    ("rules", "options"),
    [
        ("impossible", "sixth_throw_harmony = true\nfulls_need_two_values = true"),
        ("yams", 'carre = "40"\nbrelan = "matching"\nstraights = "fixed"'),
        ("yahtzee", "yams_bonus = 0\njoker_after_zero = true"),
        ("cameroun", "turns = 3"),
    ],
)
def test_rulebook_options_are_accepted_as_the_rulebook_takes_them(
    tmp_path: Path, rules: str, options: str
) -> None:
    config = load_config(write(tmp_path, f'[table]\nrules = "{rules}"\n[table.options]\n{options}'))
    rulebook = config.table.rulebook()
    assert rulebook.id == rules
    for name, value in config.table.options.items():
        assert getattr(rulebook.options, name) == value


@pytest.mark.parametrize(
    ("rules", "options", "expected"),
    [
        ("yams", "carre = 40", "table.options.carre: must be one of 'sum', 'matching', '40'"),
        ("yams", "yams_bonus = 50", "table.options.yams_bonus: must be one of 0, 100, not 50"),
        ("cameroun", "turns = 101", "table.options.turns: must be 0 to 100, not 101"),
        ("cameroun", 'turns = "3"', "table.options.turns: must be int, not '3'"),
        (
            "impossible",
            "sixth_throw_harmony = 1",
            "table.options.sixth_throw_harmony: must be bool",
        ),
        ("impossible", 'carre = "40"', "table.options.carre: unknown option for impossible"),
        ("yahtzee", "joker = 'wild'", "table.options.joker: must be one of"),
    ],
)
def test_rulebook_options_are_checked_by_the_rulebook(
    tmp_path: Path, rules: str, options: str, expected: str
) -> None:
    text = f'[table]\nrules = "{rules}"\n[table.options]\n{options}'
    [problem] = problems_of(tmp_path, text)
    assert problem.startswith(expected), problem


def test_options_of_an_unknown_rulebook_are_not_checked_against_another(tmp_path: Path) -> None:
    [problem] = problems_of(tmp_path, '[table]\nrules = "poker"\n[table.options]\ncarre = "40"')
    assert problem.startswith("table.rules:")


# -- files -----------------------------------------------------------------------------------------
def test_a_missing_file_is_one_problem_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.toml"
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.problems == ["no such file"]
    assert str(caught.value) == f"{path}: no such file"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"[server\nport = 1\n", "not valid TOML: Expected ']' at the end of a table declaration"),
        (b"[server]\nport = 8600\nport = 8601\n", "not valid TOML: Cannot overwrite a value"),
        (b"[server]\nhost = '\xff'\n", "is not a UTF-8 text file"),
    ],
    ids=["syntax", "duplicate-key", "not-utf8"],
)
def test_a_file_that_is_not_toml_is_one_problem(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "yamscope.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    [problem] = caught.value.problems
    assert problem.startswith(expected), problem
    if "TOML" in expected:
        assert "line" in problem  # where to look


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)


def test_relative_paths_are_taken_from_the_file_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "tray.mp4").write_bytes(b"")
    monkeypatch.chdir(ROOT)  # not the file's folder
    text = '[storage]\ndata_dir = "records"\n[camera]\nsource = "replay:tray.mp4"\n'
    text += '[advisor]\ncache_dir = "~/yamscope-cache"\n'
    config = load_config(write(tmp_path / "etc", text))
    assert config.storage.data_dir == tmp_path / "etc" / "records"
    assert config.camera.source == f"replay:{tmp_path / 'etc' / 'tray.mp4'}"
    assert config.camera.parsed_source.path == tmp_path / "etc" / "tray.mp4"
    assert config.advisor.cache_dir == Path.home() / "yamscope-cache"


def test_camera_specs_parse_for_the_command_line_too() -> None:
    assert parse_camera_source("opencv:1").index == 1
    assert str(parse_camera_source(" simulated ")) == "simulated"
    with pytest.raises(ValueError, match="must be"):
        parse_camera_source("webcam")


# -- the TOML written back -------------------------------------------------------------------------
def test_the_defaults_are_written_commented_and_read_back(tmp_path: Path) -> None:
    text = Config().to_toml()
    live = [line for line in text.splitlines() if line and not line.startswith(("#", "["))]
    assert live == []  # a copied example pins no default
    for model in SECTIONS[1:]:
        for name, field in model.model_fields.items():
            written = "[table.options]" if name == "options" else f"# {name} = "
            assert written in text, name
            assert " ".join(field.description.split()[:6]) in " ".join(text.split()), name
    assert "# sixth_throw_harmony = false" in text  # the rulebook's options, documented
    assert load_config(write(tmp_path, text)) == Config()


def test_a_changed_config_round_trips_whole_and_as_changes_only(tmp_path: Path) -> None:
    text = (
        '[server]\nhost = "0.0.0.0"\npin = "0427"\nport = 8700\n'
        '[storage]\nsnapshots = false\ndata_dir = "/srv/yamscope"\n'
        '[camera]\nsource = "opencv:1"\nfps = 7.5\n'
        '[table]\nrules = "yams"\nlanguage = "en"\n[table.options]\ncarre = "40"\n'
    )
    config = load_config(write(tmp_path, text))
    whole = config.to_toml()
    assert "port = 8700" in whole.splitlines() and "# width = 1280" in whole.splitlines()
    assert '# brelan = "sum"' in whole  # the options left at the rulebook's default
    assert load_config(write(tmp_path, whole, "whole.toml")) == config
    changes = config.to_toml(changed_only=True)
    assert "width" not in changes and "brelan" not in changes and "[advisor]" not in changes
    assert load_config(write(tmp_path, changes, "changes.toml")) == config


def test_the_deployed_example_is_the_printed_defaults() -> None:
    example = (ROOT / "deploy" / "yamscope.example.toml").read_text(encoding="utf-8")
    assert example == Config().to_toml(), "run: yamscope validate-config --print-defaults"


# -- yamscope validate-config ----------------------------------------------------------------------
def test_cli_valid_file_prints_what_differs_from_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '[server]\nhost = "0.0.0.0"\npin = "0427"\n[camera]\nfps = 30\n')
    assert main(["validate-config", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines() == [
        f"{path}: valid",
        '  server.host = "0.0.0.0"  (default "127.0.0.1")',
        '  server.pin = "****"',  # the PIN stays out of logs
        "  camera.fps = 30.0  (default 15.0)",
    ]


def test_cli_defaults_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "")
    assert main(["validate-config", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: valid\n  every value is the default\n"


def test_cli_invalid_file_lists_every_problem_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "[server]\nport = 70000\nprot = 1\n[table]\nmax_players = 0\n")
    assert main(["validate-config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"{path}: server.port: must be 1-65535, got 70000",
        f"{path}: server.prot: unknown key (did you mean port?) (known: host, port, pin)",
        f"{path}: table.max_players: must be 1-12, got 0",
    ]


def test_cli_missing_file_and_bad_usage_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate-config", str(tmp_path / "absent.toml")]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'absent.toml'}: no such file\n"
    assert main(["validate-config"]) == 2
    assert "give a FILE" in capsys.readouterr().err
    assert main(["validate-config", "x.toml", "--print-defaults"]) == 2
    assert "not both" in capsys.readouterr().err


def test_cli_print_defaults_as_the_installed_command(run: Run, tmp_path: Path) -> None:
    """The real entry point in a subprocess: what deploy/ runs to make the example."""
    printed = run(
        "validate-config",
        "--print-defaults",
        env={k: None for k in os.environ if k.startswith("XDG_")},
        timeout=60,
    )
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == Config().to_toml()
    path = write(tmp_path, printed.stdout)
    check = run("validate-config", str(path), timeout=60)
    assert (check.returncode, check.stdout) == (0, f"{path}: valid\n  every value is the default\n")
