"""The uiautomator2 device agent's JSON-RPC, emulated on a loopback port (reached through the demo
ADB server's `tcp:9008` forward). With the demo apps on the phone, clicks, keys, text and
screenshots go to them; errors come back as JSON-RPC errors, as on a device.
"""

from __future__ import annotations

import base64
import io
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast
from xml.sax.saxutils import escape

from device_flows.demo.device import DemoPhone
from device_flows.demo.home import Home
from device_flows.demo.screen import Element

_QUOTES = {'"': "&quot;"}


class DeviceAgent:
    """The uiautomator2 device agent's HTTP JSON-RPC, on a loopback port."""

    def __init__(self, phone: DemoPhone) -> None:
        self.phone = phone
        agent = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms stall between

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                body = b"pong" if self.path == "/ping" else b"{}"
                self._send(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                try:
                    result = agent.call(request.get("method", ""), request.get("params") or [])
                    reply = {"jsonrpc": "2.0", "id": request.get("id"), "result": result}
                except LookupError as exc:
                    reply = {"jsonrpc": "2.0", "id": request.get("id"), "error": {"code": -32601, "message": str(exc)}}
                self._send(json.dumps(reply).encode())

            def _send(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, args=(0.05,), name="demo-u2-agent", daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _match(self, selector: dict[str, Any]) -> Element | None:
        keys = ("text", "resourceId", "description", "className")
        wanted = {k: selector[k] for k in keys if selector.get(k)}
        found = [e for e in self.phone.visible() if all(_field(e, k) == v for k, v in wanted.items())]
        instance = int(selector.get("instance") or 0)
        return found[instance] if len(found) > instance else None

    def _hierarchy(self) -> str:
        package = self.phone.home.package if self.phone.home is not None else "com.example"
        nodes = "".join(_node(i, e, package) for i, e in enumerate(self.phone.visible()))
        return (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="{self.phone.rotation}"><node index="0" text="" class="android.widget.FrameLayout" '
            f'package="{package}" bounds="[0,0][{self.phone.size[0]},{self.phone.size[1]}]">{nodes}</node></hierarchy>'
        )

    def call(self, method: str, params: Any) -> Any:
        phone = self.phone
        phone.rpc_calls.append((method, params))
        width, height = phone.size if phone.rotation % 2 == 0 else phone.size[::-1]
        home = phone.home
        if home is not None and method in _APP_METHODS:
            return _APP_METHODS[method](phone, home, params)
        if method == "deviceInfo":
            return {
                "currentPackageName": home.package if home is not None else "com.example",
                "displayWidth": width,
                "displayHeight": height,
                "displayRotation": phone.rotation,
                "screenOn": phone.screen_on,
                "sdkInt": 33,
                "productName": "demo",
                "naturalOrientation": True,
            }
        if method == "wakeUp":
            phone.screen_on = True
            return True
        if method in ("click", "swipe", "swipePoints", "drag", "injectInputEvent", "pressKey", "pressKeyCode"):
            return True
        if method == "waitForExists":
            return self._match(params[0]) is not None
        if method == "waitUntilGone":
            return self._match(params[0]) is None
        if method == "objInfo":
            element = self._match(params[0])
            if element is None:
                raise LookupError("uiautomator.UiObjectNotFoundException: not found")
            left, top, right, bottom = element["bounds"]
            return {
                "bounds": {"left": left, "top": top, "right": right, "bottom": bottom},
                "text": "\u2022" * len(element.get("text", "")) if element.get("password") else element.get("text", ""),
                "className": element.get("className", ""),
            }
        if method == "dumpWindowHierarchy":
            return self._hierarchy()
        if method == "takeScreenshot":
            return base64.b64encode(_tiny_jpeg(width, height)).decode()
        if method == "setClipboard":
            phone.clipboard = params[1]
            return None
        if method == "getClipboard":
            return phone.clipboard
        if method == "pasteClipboard":
            phone.typed.append(phone.clipboard)
            return None
        if method == "clearInputText":
            phone.typed.append("")
            return None
        raise LookupError(f"method {method} not implemented by the demo phone's agent")


def _field(element: Element, key: str) -> Any:
    return cast(dict[str, Any], element).get(key)


def _flag(element: Element, key: str) -> str:
    return str(bool(_field(element, key))).lower()


def _node(index: int, e: Element, package: str) -> str:
    """One element as uiautomator dumps it; a password field shows dots, never its text."""
    text = "\u2022" * len(e.get("text", "")) if e.get("password") else e.get("text", "")
    b = e["bounds"]
    return (
        f'<node index="{index}" text="{escape(text, _QUOTES)}" resource-id="{e.get("resourceId", "")}" '
        f'class="{e.get("className", "android.widget.TextView")}" content-desc="{escape(e.get("description", ""), _QUOTES)}" '
        f'package="{package}" clickable="{_flag(e, "clickable")}" checkable="{_flag(e, "checkable")}" '
        f'checked="{_flag(e, "checked")}" focused="{_flag(e, "focused")}" password="{_flag(e, "password")}" '
        f'bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]" enabled="true" />'
    )


def _app_click(phone: DemoPhone, home: Home, params: Any) -> bool:
    home.click(int(params[0]), int(params[1]))
    return True


def _app_paste(phone: DemoPhone, home: Home, params: Any) -> None:
    phone.typed.append(phone.clipboard)
    home.type(phone.clipboard)


def _app_clear(phone: DemoPhone, home: Home, params: Any) -> None:
    phone.typed.append("")
    home.clear()


def _app_key(phone: DemoPhone, home: Home, params: Any) -> bool:
    home.press(str(params[0]))
    return True


def _app_swipe(phone: DemoPhone, home: Home, params: Any) -> bool:
    home.swipe()
    return True


def _app_screenshot(phone: DemoPhone, home: Home, params: Any) -> str:
    return base64.b64encode(home.render()).decode()


_APP_METHODS: dict[str, Callable[[DemoPhone, Home, Any], Any]] = {
    "click": _app_click,
    "pasteClipboard": _app_paste,
    "clearInputText": _app_clear,
    "pressKey": _app_key,
    "swipe": _app_swipe,
    "takeScreenshot": _app_screenshot,
}


def _tiny_jpeg(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (max(1, width // 20), max(1, height // 20)), (30, 90, 160)).save(buffer, "JPEG")
    return buffer.getvalue()
