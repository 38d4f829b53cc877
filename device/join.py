"""The address phones join the table at, and its QR code.

Why the address is worked out here: the server binds to an address (0.0.0.0 means every
one), and a phone needs the one of this machine on the room's network. The route the
system would take toward a private address names it (a UDP socket's connect sends nothing,
and needs no internet); the host name's ``.local`` (mDNS, which not every phone resolves) is
given beside it. The QR code is drawn here as SVG by segno: no CDN, the appliance is offline.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import socket
from dataclasses import dataclass

import segno

from device.config_sections import is_loopback

ANY = ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class Join:
    """Where phones join, or why they cannot (the table answers only on this machine)."""

    url: str | None
    by_name: str | None
    why_not: str | None


def lan_address() -> str | None:
    """This machine's address on the local network, None when it has none."""
    for probe in ("10.255.255.255", "192.168.255.255", "172.31.255.255"):
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))
            address = s.getsockname()[0]
            if not ipaddress.ip_address(address).is_loopback and address != "0.0.0.0":
                return address
    return None


def join(host: str, port: int) -> Join:
    """The address for phones from the address the server is bound to."""
    if is_loopback(host):
        return Join(
            None,
            None,
            "the table answers only on this machine: open it to phones in the settings (a PIN "
            "and the address 0.0.0.0), then restart",
        )
    address = lan_address() if host in ANY else host
    if address is None:
        return Join(None, None, "this machine has no address on a network")
    shown = f"[{address}]" if ":" in address else address
    name = socket.gethostname()
    return Join(f"http://{shown}:{port}/", f"http://{name}.local:{port}/", None)


def qr_svg(url: str) -> bytes:
    """The QR code of ``url`` as a standalone SVG (dark on white, a quiet zone around)."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=6, border=4, dark="#111", light="#fff"
    )
    return buffer.getvalue()
