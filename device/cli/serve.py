"""`yamscope serve`: the appliance, the table page and its API."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from device.cli.common import Commands, UsageError


def register(sub: Commands) -> None:
    """The ``serve`` command and its options."""
    srv = sub.add_parser(
        "serve",
        help="the appliance: the table page and its API",
        description="Serve the table page (/) and the JSON API (/api/). Binds to 127.0.0.1 "
        "unless told otherwise; any other address needs --pin.",
    )
    srv.add_argument("--config", metavar="FILE", help="a configuration file (TOML)")
    srv.add_argument("--host", help="address to bind (default 127.0.0.1, or the config's)")
    srv.add_argument("--port", type=int, help="port (default 8600, or the config's)")
    srv.add_argument(
        "--data",
        metavar="PATH",
        help="the records: an SQLite file or a postgresql:// address (default: the config's "
        "storage.url, else yamscope.db in its storage.data_dir: "
        "the user data folder, or $YAMSCOPE_DATA_DIR)",
    )
    srv.add_argument(
        "--pin",
        help="a code every changing action needs (required off loopback); other users of "
        "this machine can read it here: prefer --pin-file or server.pin in --config",
    )
    srv.add_argument(
        "--pin-file", metavar="FILE", help="a file whose first line is the PIN (chmod 600 it)"
    )
    srv.add_argument("--camera", metavar="SPEC", help="the dice source; only 'simulated' for now")
    srv.add_argument("--no-advice", action="store_true", help="do not compute the advisor's advice")
    srv.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from device.config import ConfigError
    from device.serve import read_pin_file, records_target, serve, settings
    from device.settings import load_for_serve

    if args.pin is not None and args.pin_file is not None:
        raise UsageError("give --pin or --pin-file, not both")
    try:
        config = load_for_serve(args.config)  # else the settings page's file, if written
        pin = read_pin_file(Path(args.pin_file)) if args.pin_file is not None else args.pin
        server, camera = settings(
            config, host=args.host, port=args.port, pin=pin, camera=args.camera
        )
    except ConfigError as exc:
        raise UsageError("; ".join(exc.problems)) from None
    if args.pin is not None:
        print(
            "yamscope: warning: --pin can be read by every user of this machine (ps, "
            "/proc/PID/cmdline): put it in the configuration file (server.pin) or use --pin-file",
            file=sys.stderr,
        )
    data = records_target(config, args.data)
    config_path = Path(args.config) if args.config is not None else None
    return serve(
        config, server, data, camera=camera, advice=not args.no_advice, config_path=config_path
    )
