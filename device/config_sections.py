"""The configuration's sections as pydantic models: every key, its type, its default, its
description and its checks (the file's schema; ``device.config`` reads and writes the file).

Why the checks sit on the models: a problem is then reported under its own key, beside
every other problem of the same file.
"""

from __future__ import annotations

import dataclasses
import difflib
import ipaddress
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)

from device import paths
from scoring.entries import RulesError
from scoring.game import MAX_PLAYERS
from scoring.rulebooks import RULEBOOKS, Rulebook, get_rulebook


class Problems(ValueError):
    """Several problems found by one check: (key below the checked one, message) pairs, so
    that each bad rulebook option is reported under its own key."""

    def __init__(self, *items: tuple[str, str]) -> None:
        self.items = items
        super().__init__("; ".join(f"{k}: {m}" for k, m in items))


# -- field checks -----------------------------------------------------------------------------
def _range(low: float, high: float) -> AfterValidator:
    def check(value: float) -> float:
        if not low <= value <= high:
            raise ValueError(f"must be {low}-{high}, got {value}")
        return value

    return AfterValidator(check)


def _even(value: int) -> int:
    if value % 2:
        raise ValueError(f"must be even (the camera's YUV streams need even sizes), got {value}")
    return value


def _not_blank(value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        raise ValueError("must not be empty")
    return value


def _resolve(path: Path, info: ValidationInfo) -> Path:
    """``~`` is the user's home; a relative path is taken from the config file's folder."""
    path = path.expanduser()
    base = (info.context or {}).get("base")
    return path if path.is_absolute() or base is None else Path(base) / path


FilePath = Annotated[Path, BeforeValidator(_not_blank), Field(strict=False)]
Pixels = Annotated[int, _range(16, 8192), AfterValidator(_even)]


@dataclass(frozen=True)
class CameraSource:
    """A parsed ``camera.source`` (or ``serve --camera``) spec."""

    kind: Literal["auto", "simulated", "picamera2", "opencv", "replay", "none"]
    index: int | None = None
    path: Path | None = None

    def __str__(self) -> str:
        if self.kind == "opencv":
            return f"opencv:{self.index}"
        if self.kind == "replay":
            return f"replay:{self.path}"
        return self.kind


SOURCE_FORMS = '"auto", "simulated", "picamera2", "opencv:<index>", "replay:<path>" or "none"'


def parse_camera_source(spec: str, base: Path | None = None) -> CameraSource:
    """Read a source spec; ValueError with a readable message when it is not one.

    A replay path must exist now: finding out when the table starts is too late.
    """
    kind, sep, arg = spec.strip().partition(":")
    if not sep and kind in ("auto", "simulated", "picamera2", "none"):
        return CameraSource(kind)  # type: ignore[arg-type]
    if sep and kind == "opencv":
        if not arg.strip().isdigit():
            raise ValueError(
                f"opencv:<index> takes a camera number like opencv:0, got {quoted(spec)}"
            )
        return CameraSource("opencv", index=int(arg))
    if sep and kind == "replay":
        if not arg.strip():
            raise ValueError("replay:<path> needs the path of a video or a folder of photos")
        path = Path(arg.strip()).expanduser()
        if not path.is_absolute() and base is not None:
            path = Path(base) / path
        if not path.exists():
            raise ValueError(f"replay: no such file or folder {quoted(str(path))}")
        return CameraSource("replay", path=path)
    raise ValueError(f"must be {SOURCE_FORMS}, got {quoted(spec)}")


def quoted(text: str) -> str:
    """A string as TOML writes it, so that messages quote values as the file does."""
    return json.dumps(text, ensure_ascii=False)


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (``localhost``, 127.x, ::1)."""
    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# -- the sections ----------------------------------------------------------------------------
class Section(BaseModel):
    """Shared settings of every section: unknown keys refused, TOML types taken as written."""

    # validate_default: the checks across keys (lores within main, PIN off loopback) must
    # also run when only one side of them was written
    model_config = ConfigDict(
        extra="forbid", strict=True, validate_assignment=True, validate_default=True
    )


class Server(Section):
    """The web page players use to see the sheet and confirm entries."""

    host: Annotated[str, BeforeValidator(_not_blank)] = Field(
        "127.0.0.1",
        description="Address the web page listens on. 127.0.0.1 (the default) is this machine "
        "only, e.g. the kiosk screen; 0.0.0.0 opens it to phones on the network, which then "
        "needs a pin.",
    )
    port: Annotated[int, _range(1, 65535)] = Field(
        8600, description="TCP port of the web page (1-65535)."
    )
    pin: str | None = Field(
        None,
        description='4 to 8 digits, in quotes (pin = "0427"), asked before anyone may write on '
        "the sheets. Required when host is not a loopback address. Not set by default.",
        json_schema_extra={"example": "0427"},
    )

    @field_validator("pin", mode="before")
    @classmethod
    def _pin(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            raise ValueError(
                f'must be in quotes, e.g. pin = "{value:04d}" (a number would lose leading zeros)'
            )
        if isinstance(value, str) and not re.fullmatch(r"[0-9]{4,8}", value):
            raise ValueError(f"must be 4 to 8 digits, got {quoted(value)}")
        return value

    @field_validator("pin", mode="after")
    @classmethod
    def _pin_off_loopback(cls, value: str | None, info: ValidationInfo) -> str | None:
        # a field check (host is validated first), so it is reported beside other problems
        host = info.data.get("host")
        if value is None and host is not None and not is_loopback(host):
            raise ValueError(
                f"required when host is not loopback (host = {quoted(host)}): anyone on the "
                "network could otherwise write on the sheets"
            )
        return value


class Storage(Section):
    """Where the table keeps its records: games, throws, entries, corrections."""

    data_dir: FilePath = Field(
        default_factory=paths.data_dir,
        description="Folder of the records file (yamscope.db). Default: the user's data "
        "folder (~/.local/share/yamscope on Linux). A relative path is taken from this "
        "file's folder.",
    )
    snapshots: bool = Field(
        True,
        description="Keep the photo each throw was read from, to check a reading later and "
        "to improve the model (about 100 KB a throw).",
    )
    photo_budget_mb: Annotated[int, _range(1, 1_000_000)] = Field(
        500,
        description="Megabytes the throws' photos may take in the records; past it the "
        "oldest photos are dropped (never a throw, an entry or a correction).",
    )
    url: Annotated[str, BeforeValidator(_not_blank)] | None = Field(
        None,
        description="Where the records are kept: an SQLite file, or a club's PostgreSQL "
        'database shared by several tables ("postgresql://USER:PASSWORD@HOST/DATABASE"; give '
        "each table its own table.name). Default: yamscope.db in data_dir. A relative file "
        "path is taken from this file's folder.",
        json_schema_extra={"example": "postgresql://yamscope@club.local/yamscope"},
    )

    @field_validator("data_dir", mode="after")
    @classmethod
    def _data_dir(cls, value: Path, info: ValidationInfo) -> Path:
        return _resolve(value, info)

    @field_validator("url", mode="after")
    @classmethod
    def _url(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None or value.startswith(("postgresql://", "postgres://")):
            return value
        if "://" in value:
            scheme = value.split("://")[0] + "://…"
            raise ValueError(f"must be a file path or a postgresql:// address, got {scheme}")
        return str(_resolve(Path(value), info))

    def records(self) -> str | Path:
        """The records' SQLite file or PostgreSQL address."""
        if self.url is None:
            return self.data_dir / "yamscope.db"
        return self.url if "://" in self.url else Path(self.url)


class Camera(Section):
    """The camera above the tray."""

    source: Annotated[str, BeforeValidator(_not_blank)] = Field(
        "auto",
        description=f"Where frames come from: {SOURCE_FORMS}. auto: the Pi camera if one is "
        "attached, else the simulated tray (read by the real pipeline). none: no camera, "
        "the throw button draws the dice. A relative replay path is taken from this file's "
        "folder.",
    )
    calibration: FilePath | None = Field(
        None,
        description="Calibration of the empty tray written by `yamscope calibrate`. Default: "
        "calibration.json in the records folder, when there is one.",
    )
    width: Pixels = Field(
        1280, description="Width of the main stream, the photos kept of each throw (pixels)."
    )
    height: Pixels = Field(960, description="Height of the main stream (pixels).")
    lores_width: Pixels = Field(
        320, description="Width of the small stream the settle detection watches (pixels)."
    )
    lores_height: Pixels = Field(240, description="Height of the small stream (pixels).")
    fps: Annotated[float, _range(1, 120)] = Field(
        15.0, description="Frames per second asked of the camera (1-120)."
    )
    watchdog_seconds: Annotated[float, _range(1, 600)] = Field(
        5.0,
        description="Restart the capture after this many seconds without a frame (1-600).",
    )
    field_of_view: Annotated[float, _range(10, 150)] | None = Field(
        None,
        description="Degrees across the main stream sees, for calibrating from the table "
        "page (10-150). Default: what a Raspberry Pi camera module says of itself (Camera "
        "Module 3 in a 4:3 stream: 52), else 52. Set it for an HQ camera's lens.",
        json_schema_extra={"example": 52.0},
    )
    lock_exposure_after_calibration: bool = Field(
        True,
        description="Fix exposure and white balance once the tray is calibrated, so that the "
        "dice's colours read the same all evening.",
    )

    @field_validator("source", mode="after")
    @classmethod
    def _source(cls, value: str, info: ValidationInfo) -> str:
        return str(parse_camera_source(value, (info.context or {}).get("base")))

    @field_validator("calibration", mode="after")
    @classmethod
    def _calibration(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        return None if value is None else _resolve(value, info)

    @field_validator("lores_width", "lores_height", mode="after")
    @classmethod
    def _lores_fits(cls, value: int, info: ValidationInfo) -> int:
        side = str(info.field_name).removeprefix("lores_")
        main = info.data.get(side)
        if main is not None and value > main:
            raise ValueError(f"must not exceed {side} ({main}), got {value}")
        return value

    @property
    def parsed_source(self) -> CameraSource:
        return parse_camera_source(self.source)


class Table(Section):
    """The game played at the table."""

    rules: str = Field(
        "impossible",
        description=f"Rulebook of new games: {', '.join(RULEBOOKS)}.",
    )
    name: str = Field(
        "",
        max_length=40,
        description="This table's name in the records: a club's tables keep their games in "
        "one database and each needs its own name. Default: this machine's host name.",
        json_schema_extra={"example": "Table du fond"},
    )
    language: Literal["fr", "en"] = Field("fr", description='Language of the page: "fr" or "en".')
    max_players: Annotated[int, _range(1, MAX_PLAYERS)] = Field(
        6, description=f"Most players a game may seat (1-{MAX_PLAYERS})."
    )
    computer_pace: Annotated[float, _range(0, 10)] = Field(
        1.5,
        description="Seconds between two moves of a computer player (each throw and what it "
        "keeps stays on the page that long; « Passer » skips the rest of its turn). 0: at once.",
    )
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="The rulebook's pre-game options, as [table.options] keys. An option left "
        "out keeps the rulebook's default (shown commented out); each rulebook has its own.",
    )

    @field_validator("rules", mode="after")
    @classmethod
    def _rules(cls, value: str) -> str:
        if value not in RULEBOOKS:
            raise ValueError(f"must be one of {', '.join(RULEBOOKS)}, got {quoted(value)}")
        return value

    @field_validator("options", mode="after")
    @classmethod
    def _options(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        """Each option on its own first, so that every bad one is reported, then together.
        Skipped when the rules themselves are wrong: there is nothing to check against."""
        rules = info.data.get("rules")
        if rules is None:
            return value
        known = {f.name for f in dataclasses.fields(RULEBOOKS[rules].options_type)}
        problems = []
        for name, option in value.items():
            if name not in known:
                hint = did_you_mean(name, known)
                listed = ", ".join(sorted(known)) or "none"
                problems.append((name, f"unknown option for {rules}{hint} (known: {listed})"))
                continue
            try:
                get_rulebook(rules, {name: option})
            except RulesError as exc:
                problems.append((name, str(exc).removeprefix(f"option {name} ")))
        if not problems:
            try:
                get_rulebook(rules, value)
            except RulesError as exc:
                problems.append(("", str(exc)))
        if problems:
            raise Problems(*problems)
        return value

    def rulebook(self) -> Rulebook:
        return get_rulebook(self.rules, self.options)

    def table_name(self) -> str:
        """The name the records keep this table's games under."""
        import socket

        return self.name.strip() or socket.gethostname()


class Advisor(Section):
    """The strategy advisor."""

    cache_dir: FilePath = Field(
        default_factory=paths.cache_dir,
        description="Folder of solved strategies, rebuilt when missing (minutes on a Pi). "
        "Default: the user's cache folder (~/.cache/yamscope on Linux).",
    )

    @field_validator("cache_dir", mode="after")
    @classmethod
    def _cache_dir(cls, value: Path, info: ValidationInfo) -> Path:
        return _resolve(value, info)


class Config(Section):
    """yamscope's configuration. Every key is optional: a key left out keeps the default
    shown here, so a file need only hold what it changes."""

    server: Server = Field(default_factory=Server, description=Server.__doc__ or "")
    storage: Storage = Field(default_factory=Storage, description=Storage.__doc__ or "")
    camera: Camera = Field(default_factory=Camera, description=Camera.__doc__ or "")
    table: Table = Field(default_factory=Table, description=Table.__doc__ or "")
    advisor: Advisor = Field(default_factory=Advisor, description=Advisor.__doc__ or "")

    def to_toml(self, *, changed_only: bool = False) -> str:
        """This configuration as a commented TOML file (``changed_only``: what a user's
        file needs, the keys that differ from the defaults)."""
        from device.config_toml import render

        return render(self, changed_only=changed_only)

    def changes(self) -> list[tuple[str, Any, Any]]:
        """(dotted key, value, default) for every effective value that is not the default;
        the default is None for a key with none (a rulebook option, the PIN)."""
        mine, defaults = _flatten(self.model_dump()), _flatten(Config().model_dump())
        return [(k, v, defaults.get(k)) for k, v in mine.items() if defaults.get(k, ...) != v]


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out |= _flatten(value, f"{prefix}{key}.")
        else:
            out[prefix + key] = value
    return out


def did_you_mean(name: str, known: Any) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]}?)" if close else ""
