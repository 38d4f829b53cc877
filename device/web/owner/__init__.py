"""The owner's pages (``/owner``) and their JSON under ``/api/owner/``: the first-run wizard,
settings, health, the log, backup and restore, restart and shut down, the phones' QR code.

Why a blueprint of its own, given what it needs by ``install_owner``: the table page works
without an owner (tests, a kiosk's second screen); ``yamscope serve`` adds this with the
configuration file, the records and the process it may restart. Changing actions pass the
table's guard (page token, PIN, JSON) as every other; reading the settings and the log also
needs the PIN when one is set (they say how the table is set up); the pictures (QR code,
the lesson's photos) do not, an ``<img>`` cannot send it. Request bodies are pydantic
models: a body that is not one is a 400 naming what is wrong, and nothing changes.

The routes live by group: ``page`` (the guard, the page, its status, the phones' QR code),
``configure`` (settings, PIN, health, the log), ``machine`` (backup, restore, restart, shut
down), ``lesson`` (« Apprendre mes dés »); ``common`` holds what they share.
"""

from __future__ import annotations

from flask import Blueprint, Flask

from device.web.owner import configure, lesson, machine, page
from device.web.owner.common import Owner

__all__ = ["Owner", "build_owner", "install_owner"]


def install_owner(app: Flask, owner: Owner) -> None:
    """Add the owner's pages to the table's app."""
    app.extensions["yamscope.owner"] = owner
    app.register_blueprint(build_owner())


def build_owner() -> Blueprint:
    bp = Blueprint("owner", __name__)
    page.register_guard(bp)
    page.register_page(bp)
    page.register_phones(bp)
    configure.register(bp)
    machine.register_records(bp)
    machine.register_power(bp)
    lesson.register(bp)
    return bp
