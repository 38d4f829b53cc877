"""The appliance's one configuration file: a TOML file checked against the schema of
``device.config_sections``, read here and every problem put in words.

Why a schema: a table at a party must not start with a typo silently ignored, so every key
is known (``extra="forbid"``), typed (strict: ``port = "8600"`` is refused, not guessed) and
checked, and every problem comes back at once as one readable line naming its key. Why
defaults live in the schema (as in OctoPrint): the user's file holds only what they
changed, so a new version's better default reaches every table that did not choose
otherwise, and
``yamscope validate-config --print-defaults`` writes the documented example from the schema.

Relative paths in a file are taken from the file's own folder, not from wherever the
service happened to start.
"""

from __future__ import annotations

import stat
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from device.config_sections import (
    SOURCE_FORMS,
    Advisor,
    Camera,
    CameraSource,
    Config,
    Problems,
    Section,
    Server,
    Storage,
    Table,
    did_you_mean,
    is_loopback,
    parse_camera_source,
    quoted,
)

# the sections are named here too: device.config is where a setting's code and tests look
__all__ = [
    "SOURCE_FORMS",
    "Advisor",
    "Camera",
    "CameraSource",
    "Config",
    "ConfigError",
    "Section",
    "Server",
    "Storage",
    "Table",
    "is_loopback",
    "load_config",
    "parse_camera_source",
    "problems",
]


class ConfigError(ValueError):
    """The configuration cannot be used: ``problems`` holds one readable line per problem."""

    def __init__(self, problems: list[str], path: Path | None = None) -> None:
        self.problems = problems
        self.path = path
        prefix = f"{path}: " if path is not None else ""
        super().__init__("\n".join(prefix + p for p in problems))


# -- loading -----------------------------------------------------------------------------------
MAX_CONFIG_BYTES = 1024 * 1024
TOO_DEEP = "nests tables or lists too deeply to be a configuration"


def load_config(path: Path | str | None) -> Config:
    """The configuration in ``path`` over the defaults (None: the defaults alone).

    Raises ConfigError naming the file and listing every problem found, one per line.
    """
    if path is None:
        return Config()
    path = Path(path)
    try:
        _small_file(path)
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(["no such file"], path) from None
    except IsADirectoryError:
        raise ConfigError(["is a folder, not a configuration file"], path) from None
    except UnicodeDecodeError:
        raise ConfigError(["is not a UTF-8 text file"], path) from None
    except OSError as exc:
        raise ConfigError([f"cannot be read: {exc.strerror or exc}"], path) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"not valid TOML: {exc}"], path) from None
    except RecursionError:
        raise ConfigError([TOO_DEEP], path) from None
    try:
        return Config.model_validate(data, context={"base": path.resolve().parent})
    except ValidationError as exc:
        raise ConfigError(list(problems(exc)), path) from None
    except RecursionError:
        raise ConfigError([TOO_DEEP], path) from None


def _small_file(path: Path) -> None:
    """ConfigError unless ``path`` is a regular file of a configuration's size: reading a
    FIFO would hang, and a device such as /dev/zero would never end."""
    info = path.stat()
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(path)
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(["is not a regular file"], path)
    if info.st_size > MAX_CONFIG_BYTES:
        raise ConfigError([f"is {info.st_size} bytes, too big for a configuration"], path)


def problems(exc: ValidationError) -> Iterator[str]:
    """One ``key.path: message`` line per problem, in words a player can act on."""
    for error in exc.errors():
        loc = [str(part) for part in error["loc"]]
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, Problems):
            for key, message in cause.items:
                yield f"{'.'.join([*loc, key] if key else loc)}: {message}"
            continue
        yield f"{'.'.join(loc) or '(top level)'}: {_message(error, loc)}"


def _message(error: Any, loc: list[str]) -> str:
    kind, value = error["type"], error.get("input")
    got = f", got {_show(value)}"
    if kind == "value_error":
        return str(error["ctx"]["error"])
    if kind == "extra_forbidden":
        known = _known_keys(loc[:-1])
        what = "section" if len(loc) == 1 else "key"
        return f"unknown {what}{did_you_mean(loc[-1], known)} (known: {', '.join(known)})"
    simple: dict[str, Callable[[], str]] = {
        "int_type": lambda: "must be a whole number",
        "float_type": lambda: "must be a number",
        "bool_type": lambda: "must be true or false",
        "string_type": lambda: "must be a string in quotes",
        "dict_type": lambda: "must be a table of keys",
        "model_type": lambda: f"must be a table ([{'.'.join(loc)}])",
        "literal_error": lambda: "must be " + error["ctx"]["expected"].replace("'", '"'),
        "path_type": lambda: "must be a path in quotes",
    }
    if kind in simple:
        return simple[kind]() + got
    return f"{error['msg']}{got}"


def _show(value: Any) -> str:
    """A value as it was written in the TOML file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return str(value)


def _known_keys(loc: list[str]) -> list[str]:
    model: type[BaseModel] = Config
    for part in loc:
        annotation = model.model_fields[part].annotation
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)
