"""The uiautomator2 device agent's JSON-RPC, faked on a loopback port (reached through the fake
ADB server's `tcp:9008` forward). With a simulated app on the phone, clicks, keys, text and
screenshots go to the app; errors it raises come back as JSON-RPC errors, as on a device.
"""

from __future__ import annotations

import base64
import io
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from xml.sax.saxutils import escape

from tests.fakes.fake_phone import FakePhone
from tests.fakes.phone_app import NotesApp

_QUOTES = {'"': "&quot;"}


class FakeAgent:
    """The uiautomator2 device agent's HTTP JSON-RPC, on a loopback port."""

    def __init__(self, phone: FakePhone) -> None:
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
        threading.Thread(target=self.server.serve_forever, args=(0.05,), name="fake-u2-agent", daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _match(self, selector: dict[str, Any]) -> dict[str, Any] | None:
        keys = ("text", "resourceId", "description", "className")
        wanted = {k: selector[k] for k in keys if selector.get(k)}
        found = [e for e in self.phone.visible() if all(e.get(k) == v for k, v in wanted.items())]
        instance = int(selector.get("instance") or 0)
        return found[instance] if len(found) > instance else None

    def _hierarchy(self) -> str:
        package = self.phone.app.package if self.phone.app is not None else "com.example"
        nodes = "".join(
            '<node index="{i}" text="{text}" resource-id="{rid}" class="{cls}" content-desc="{desc}" '
            'package="{pkg}" clickable="{click}" focused="{focus}" bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]" '
            'enabled="true" />'.format(
                i=i,
                text=escape(e.get("text", ""), _QUOTES),
                rid=e.get("resourceId", ""),
                cls=e.get("className", "android.widget.TextView"),
                desc=escape(e.get("description", ""), _QUOTES),
                pkg=package,
                click=str(bool(e.get("clickable"))).lower(),
                focus=str(bool(e.get("focused"))).lower(),
                b=e["bounds"],
            )
            for i, e in enumerate(self.phone.visible())
        )
        return (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="{self.phone.rotation}"><node index="0" text="" class="android.widget.FrameLayout" '
            f'package="{package}" bounds="[0,0][{self.phone.size[0]},{self.phone.size[1]}]">{nodes}</node></hierarchy>'
        )

    def call(self, method: str, params: Any) -> Any:
        phone = self.phone
        phone.rpc_calls.append((method, params))
        width, height = phone.size if phone.rotation % 2 == 0 else phone.size[::-1]
        app = phone.app
        if app is not None and method in _APP_METHODS:
            return _APP_METHODS[method](phone, app, params)
        if method == "deviceInfo":
            return {
                "currentPackageName": app.package if app is not None else "com.example",
                "displayWidth": width,
                "displayHeight": height,
                "displayRotation": phone.rotation,
                "screenOn": phone.screen_on,
                "sdkInt": 33,
                "productName": "fake",
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
                "text": element.get("text", ""),
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
        raise LookupError(f"method {method} not implemented by the fake agent")


def _app_click(phone: FakePhone, app: NotesApp, params: Any) -> bool:
    app.click(int(params[0]), int(params[1]))
    return True


def _app_paste(phone: FakePhone, app: NotesApp, params: Any) -> None:
    phone.typed.append(phone.clipboard)
    app.type(phone.clipboard)


def _app_clear(phone: FakePhone, app: NotesApp, params: Any) -> None:
    phone.typed.append("")
    app.clear()


def _app_key(phone: FakePhone, app: NotesApp, params: Any) -> bool:
    app.press(str(params[0]))
    return True


def _app_swipe(phone: FakePhone, app: NotesApp, params: Any) -> bool:
    app.swipe()
    return True


def _app_screenshot(phone: FakePhone, app: NotesApp, params: Any) -> str:
    return base64.b64encode(app.render()).decode()


_APP_METHODS: dict[str, Callable[[FakePhone, NotesApp, Any], Any]] = {
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
