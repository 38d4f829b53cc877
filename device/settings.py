"""The owner's settings page: the configuration file read, changed and written back.

Why it writes the file and nothing else: the file is what ``yamscope serve`` reads at start,
so a setting saved here is the one the next start uses, and a hand edit made meanwhile is
not lost (the file is read again before each change). As OctoPrint does, it keeps only what
differs from the defaults (``Config.to_toml(changed_only=True)``), so a newer yamscope's
better default still reaches the table. The whole file is validated with the changes before
anything is written; a refused change leaves the file as it was.
"""

from __future__ import annotations

import contextlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ValidationError

from device import paths
from device.config import ConfigError, _small_file, load_config, problems
from device.config_sections import Config

FILE_NAME = "yamscope.toml"
# What a running table takes at once; every other key is read at start only.
LIVE_KEYS = frozenset({"table.computer_pace", "storage.snapshots", "storage.photo_budget_mb"})
SECRET_KEYS = frozenset({"server.pin"})  # never sent back to a page
SKIPPED_KEYS = frozenset({"table.options"})  # a table of the rulebook's own: edited in the file


def config_file(given: str | Path | None) -> Path:
    """The file the settings page writes: the one ``--config`` named, else yamscope.toml
    in the records' default folder (``$YAMSCOPE_DATA_DIR``), which serve then reads."""
    return Path(given) if given is not None else paths.data_dir() / FILE_NAME


def load_for_serve(given: str | Path | None) -> Config:
    """The configuration ``yamscope serve`` starts with: ``--config`` (which must exist),
    else the settings page's file when there is one, else the defaults."""
    if given is not None:
        return load_config(given)
    default = config_file(None)
    return load_config(default) if default.exists() else Config()


def current(path: Path) -> Config:
    """What the settings file holds now, over the defaults (none yet: the defaults)."""
    return load_config(path) if path.exists() else Config()


def _raw(path: Path) -> dict[str, Any]:
    """The file's own tables (not the defaults): what the owner wrote there."""
    if not path.exists():
        return {}
    try:
        _small_file(path)
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError([f"cannot be read: {exc}"], path) from None


@dataclass(frozen=True)
class Field:
    """One key as the settings page shows it."""

    key: str
    kind: str  # bool, int, float, text, choice
    value: Any
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    live: bool = False
    secret: bool = False


def _kind(annotation: Any) -> tuple[str, tuple[str, ...]]:
    """How the page asks for a value of this type (Optional and Annotated looked through)."""
    base = annotation
    while not isinstance(base, type):
        if get_origin(base) is Literal:
            return "choice", tuple(get_args(base))
        args = [a for a in get_args(base) if a is not type(None)]
        if not args:
            break
        base = args[0]
    if base is bool:
        return "bool", ()
    if base is int:
        return "int", ()
    if base is float:
        return "float", ()
    return "text", ()


def fields(config: Config) -> list[Field]:
    """Every key of every section, with its effective value, its default and its help;
    the PIN's value is never given, only whether one is set."""
    from scoring.rulebooks import RULEBOOKS

    defaults = Config()
    out = []
    for section_name in Config.model_fields:
        section: BaseModel = getattr(config, section_name)
        default_section: BaseModel = getattr(defaults, section_name)
        for name, info in type(section).model_fields.items():
            key = f"{section_name}.{name}"
            if key in SKIPPED_KEYS:
                continue
            kind, choices = _kind(info.annotation)
            if key == "table.rules":
                kind, choices = "choice", tuple(RULEBOOKS)
            value, default = getattr(section, name), getattr(default_section, name)
            secret = key in SECRET_KEYS
            if secret:
                value = value is not None
            elif key == "storage.url" and isinstance(value, str):
                value = masked(value)
            out.append(
                Field(
                    key,
                    kind,
                    str(value) if isinstance(value, Path) else value,
                    str(default) if isinstance(default, Path) else default,
                    info.description or "",
                    choices,
                    key in LIVE_KEYS,
                    secret,
                )
            )
    return out


def masked(url: str) -> str:
    """A database address with its password hidden (the page is not the place for it)."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1****@", url)


@dataclass(frozen=True)
class Saved:
    """What a change did: the new configuration, the keys it changed, those that wait for a
    restart, and the file written."""

    config: Config
    changed: tuple[str, ...]
    restart: tuple[str, ...]
    path: Path


def change(path: Path, wanted: Mapping[str, Any]) -> Saved:
    """The file at ``path`` with ``wanted`` (dotted key → value; None: back to the default)
    applied, validated whole, written back with only what differs from the defaults.
    Raises ConfigError naming every problem by its key; nothing is written then."""
    data = _raw(path)
    before = current(path)
    url = before.storage.url
    if url is not None and wanted.get("storage.url") == masked(url):  # shown, not changed
        wanted = {k: v for k, v in wanted.items() if k != "storage.url"}
    unknown = [k for k in wanted if k.count(".") != 1 or k in SKIPPED_KEYS]
    if unknown:
        raise ConfigError([f"{k}: not a setting this page changes" for k in unknown])
    for key, value in wanted.items():
        section, name = key.split(".")
        table = data.setdefault(section, {})
        if not isinstance(table, dict):
            raise ConfigError([f"{section}: must be a table ([{section}])"], path)
        if value is None:
            table.pop(name, None)
        else:
            table[name] = value
    try:
        config = Config.model_validate(data, context={"base": path.resolve().parent})
    except ValidationError as exc:
        raise ConfigError(list(problems(exc))) from None
    old, new = _flat(before), _flat(config)
    changed = tuple(k for k in new if old.get(k) != new[k])
    write(path, config.to_toml(changed_only=True))
    restart = tuple(k for k in changed if k not in LIVE_KEYS)
    return Saved(config, changed, restart, path)


def _flat(config: Config) -> dict[str, Any]:
    out = {}
    for section_name in Config.model_fields:
        for name, value in getattr(config, section_name).model_dump().items():
            out[f"{section_name}.{name}"] = value
    return out


def write(path: Path, text: str) -> None:
    """Write through a temporary file renamed over the old one (a power cut leaves either
    file whole), readable by its owner only unless it already was more (it may hold the
    PIN); the file it replaces is kept beside it as ``.previous``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o600
    with contextlib.suppress(FileNotFoundError):
        mode = path.stat().st_mode & 0o777
    part = path.with_name(path.name + ".part")
    descriptor = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.chmod(part, mode)
    if path.exists():
        previous = path.with_name(path.name + ".previous")
        with contextlib.suppress(OSError):
            previous.write_bytes(path.read_bytes())
            os.chmod(previous, mode)
    os.replace(part, path)
