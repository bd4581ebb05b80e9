"""Serve the demo phone until told to stop: `python -m device_flows.demo [--port 5037]`.

`rlauto phone demo` starts this in the background (and `rlauto phone stop` / `rlauto down` end
it). It binds 127.0.0.1 only. On SIGTERM or Ctrl-C it closes its sockets and exits 0.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from types import FrameType

from device_flows.demo.adb_server import DemoAdbServer
from device_flows.demo.device import DemoPhone
from device_flows.demo.home import Home
from device_flows.demo.notes import NotesApp
from device_flows.demo.screen import App
from device_flows.demo.settings_app import SettingsApp
from device_flows.demo.shopping import ShoppingApp

DEMO_SERIAL = "demo-1"
DEMO_PORT = 5037  # the ADB server's own port: what adbutils, uiautomator2 and the flows ask by default


def demo_phone(serial: str = DEMO_SERIAL, *, needs_login: bool = False, password: str = "demo") -> DemoPhone:
    """A phone with the demo apps (notes, settings, shopping), its screen off until woken."""
    apps: list[App] = [NotesApp(needs_login=needs_login, password=password), SettingsApp(), ShoppingApp()]
    return DemoPhone(serial, home=Home(apps=apps))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m device_flows.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=DEMO_PORT, help="the ADB server port on 127.0.0.1")
    parser.add_argument("--serial", default=DEMO_SERIAL)
    parser.add_argument("--login", action="store_true", help="the notes app asks a person to sign in first")
    parser.add_argument("--password", default="demo", help="the password a person types to sign in")
    args = parser.parse_args(argv)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    phone = demo_phone(args.serial, needs_login=args.login, password=args.password)
    try:
        server = DemoAdbServer([phone], port=args.port)
    except OSError as exc:
        print(
            f"error: 127.0.0.1:{args.port} cannot be used ({exc.strerror or exc}): another ADB server?", file=sys.stderr
        )
        return 2
    with server:
        print(f"demo phone {phone.serial} on the ADB server 127.0.0.1:{server.port} (pid {os.getpid()})", flush=True)
        stop.wait()
    return 0
