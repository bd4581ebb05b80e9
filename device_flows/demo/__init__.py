"""The demo phone: an emulated Android phone shipped with the product, to try the phone agent
without a phone, and the phone every device test drives.

It is a server, not a driver: `DemoAdbServer` speaks the ADB host protocol on loopback and
forwards `tcp:9008` to an emulation of uiautomator2's device agent (`DeviceAgent`), so the real
adbutils and uiautomator2 clients (`device_flows.phone.U2Phone`) run unchanged against it. A
`DemoPhone` has the demo apps (`Home`: notes with an optional sign-in only a person passes,
settings switches, a shopping list) whose state a task changes and a checker reads back
(`dumpsys rlauto-demo`, `settings get global wifi_on`), and screenshots rendered from that state.
`ScriptedModel` plays the demo's tasks with no key (`--model scripted`).

`rlauto phone demo` runs it in the background (`python -m device_flows.demo`, `serve.main`).
"""

from device_flows.demo.adb_server import DemoAdbServer
from device_flows.demo.device import STATE_COMMAND, DemoPhone
from device_flows.demo.home import LAUNCHER, Home
from device_flows.demo.notes import NotesApp
from device_flows.demo.scripted import SCRIPTED_MODEL, ScriptedModel
from device_flows.demo.serve import DEMO_PORT, DEMO_SERIAL, demo_phone
from device_flows.demo.settings_app import SettingsApp
from device_flows.demo.shopping import ShoppingApp
from device_flows.demo.u2_agent import DeviceAgent

__all__ = [
    "DEMO_PORT",
    "DEMO_SERIAL",
    "LAUNCHER",
    "SCRIPTED_MODEL",
    "STATE_COMMAND",
    "DemoAdbServer",
    "DemoPhone",
    "DeviceAgent",
    "Home",
    "NotesApp",
    "ScriptedModel",
    "SettingsApp",
    "ShoppingApp",
    "demo_phone",
]
