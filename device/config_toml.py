"""A Config written back as TOML, every key under its description.

Why a writer of our own: the values are a handful of scalars and one table of rulebook
options, and the point is the comments (tomllib only reads; TOML writers drop comments).
What ``render`` writes, ``load_config`` reads back to the same Config: the tests hold it to
that. A key at its default is written commented out (as OctoPrint keeps only what the user
changed), so the example file stays "the defaults" when a later version improves one; the
folders are shown with ``~`` so that it reads the same on every machine.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from scoring.rulebooks import RULEBOOKS

if TYPE_CHECKING:
    from device.config_sections import Config

WIDTH = 92
HEADER = (
    "yamscope configuration (TOML). Every key is optional: a key left out, or commented out "
    "as the defaults are here, keeps its default, so a newer yamscope's better default still "
    "reaches you. Uncomment and edit only what you change. Check a file with `yamscope "
    "validate-config FILE`; `yamscope validate-config --print-defaults` prints every key with "
    "its default and what it does."
)


def comment(text: str) -> list[str]:
    lines = []
    for paragraph in text.splitlines() or [""]:
        wrapped = textwrap.wrap(" ".join(paragraph.split()), WIDTH - 2) or [""]
        lines += [f"# {line}".rstrip() for line in wrapped]
    return lines


def toml_key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else toml_string(name)


def toml_string(text: str) -> str:
    # JSON's escapes (\" \\ \n \uXXXX) are TOML's too; DEL is the one it leaves bare
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Path):
        return toml_string(str(value))
    if isinstance(value, str):
        return toml_string(value)
    raise TypeError(f"no TOML form for {value!r}")


def _home_short(path: Path) -> Path:
    """``/home/pi/.cache/yamscope`` as ``~/.cache/yamscope``: the same on every machine."""
    try:
        return Path("~") / path.relative_to(Path.home())
    except ValueError:
        return path


def _key_lines(name: str, info: FieldInfo, value: Any, default: Any) -> list[str]:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    lines = comment(info.description or "")
    if value is None:
        lines.append(f"# {name} = {toml_value(extra.get('example', ''))}")
    elif value == default:
        shown = _home_short(value) if isinstance(value, Path) else value
        lines.append(f"# {name} = {toml_value(shown)}")
    else:
        lines.append(f"{name} = {toml_value(value)}")
    return lines


def _options_lines(
    rules: str, options: dict[str, Any], info: FieldInfo, changed_only: bool
) -> list[str]:
    described = RULEBOOKS[rules].options_type.describe()
    lines = ["[table.options]", *comment(f"{info.description} Rules chosen: {rules}.")]
    for name, default, help_text in described:
        if name not in options and changed_only:
            continue
        lines += ["", *comment(help_text)]
        if name in options:
            lines.append(f"{toml_key(name)} = {toml_value(options[name])}")
        else:
            lines.append(f"# {toml_key(name)} = {toml_value(default)}")
    if not described:
        lines.append("# (this rulebook has no options)")
    return lines


def render(config: Config, *, changed_only: bool = False) -> str:
    """The TOML text of ``config``: all keys, or with ``changed_only`` those not default."""
    from device.config_sections import Config

    defaults = Config()
    out = comment(HEADER)
    for section_name, section_info in Config.model_fields.items():
        section: BaseModel = getattr(config, section_name)
        default_section: BaseModel = getattr(defaults, section_name)
        body: list[str] = []
        tables: list[str] = []
        for name, info in type(section).model_fields.items():
            value, default = getattr(section, name), getattr(default_section, name)
            if changed_only and value == default:
                continue
            if isinstance(value, dict):  # table.options: a sub-table after the plain keys,
                # listing every option of the rulebook chosen, set or not
                tables = _options_lines(config.table.rules, value, info, changed_only)
                continue
            body += ["", *_key_lines(name, info, value, default)]
        if changed_only and not body and not tables:
            continue
        out += ["", "", f"[{section_name}]", *comment(section_info.description or ""), *body]
        if tables:
            out += ["", *tables]
    return "\n".join(out) + "\n"
