"""A fake ADB server on loopback, speaking the ADB host protocol, with fake phones behind it.

The real `adbutils.AdbClient(host="127.0.0.1", port=server.port)` talks to it, and so does
the real uiautomator2 client: its JSON-RPC over HTTP reaches `FakeAgent` through the
`tcp:9008` service, which this server pipes to the agent's loopback port.

Supported: host:version, host:kill, host:devices, host:devices-l, host:transport:SERIAL,
host:tport:serial:SERIAL, host-serial:SERIAL:(get-state|features|forward...|list-forward),
and after a transport: shell:CMD (output streamed; `getevent -lt` replays a canned trace
at its recorded pace, then stays open like the real one until the client hangs up) and
tcp:PORT. Everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import socket
import socketserver
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.fakes.pipes import splice

TRACE_TIME = re.compile(rb"^\[\s*(\d+\.\d+)\]")


@dataclass
class FakePhone:
    """What one device answers: its screen, input devices, canned touch trace and UI."""

    serial: str
    caps: str = ""
    trace: str = ""
    trace_speed: float = 1.0  # 2.0 replays the trace twice as fast as recorded
    size: tuple[int, int] = (1080, 2340)
    rotation: int = 0
    screen_on: bool = False
    elements: list[dict[str, Any]] = field(default_factory=list)  # {"text", "resourceId", "bounds"}
    commands: list[str] = field(default_factory=list)
    rpc_calls: list[tuple[str, Any]] = field(default_factory=list)
    streams_closed_by_client: int = 0
    clipboard: str = ""
    typed: list[str] = field(default_factory=list)

    def shell_output(self, command: str) -> bytes:
        """Output of a short shell command (anything not listed succeeds silently)."""
        if command.startswith("getevent") and ("-lp" in command or "-p" in command.split()):
            return self.caps.encode()
        if command == "wm size":
            return f"Physical size: {self.size[0]}x{self.size[1]}\n".encode()
        if command == "dumpsys display":
            return f"  mOverrideDisplayInfo=DisplayInfo{{real 1080 x 2340, orientation={self.rotation}}}\n".encode()
        if command.startswith("dumpsys power"):
            state = "Awake" if self.screen_on else "Asleep"
            return f"mWakefulness={state}\nmHoldingDisplaySuspendBlocker={str(self.screen_on).lower()}\n".encode()
        if command in ("input keyevent 224", "input keyevent WAKEUP", "input keyevent KEYCODE_WAKEUP"):
            self.screen_on = True
            return b""
        if command.startswith("toybox md5sum ") or command.startswith("md5 "):
            return self._md5(command.split()[-1])
        if command.startswith("getprop"):
            return b"fake\n"
        return b""

    def _md5(self, remote: str) -> bytes:
        # The agent "is installed": answer with the hash of the jar uiautomator2 would push.
        import uiautomator2

        jar = Path(uiautomator2.__file__).parent / "assets" / "u2.jar"
        digest = hashlib.md5(jar.read_bytes()).hexdigest() if jar.exists() else "0" * 32
        return f"{digest}  {remote}\n".encode()


class FakeAgent:
    """The uiautomator2 device agent's HTTP JSON-RPC, on a loopback port."""

    def __init__(self, phone: FakePhone) -> None:
        self.phone = phone
        agent = self

        class Handler(BaseHTTPRequestHandler):
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
        threading.Thread(target=self.server.serve_forever, name="fake-u2-agent", daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _match(self, selector: dict[str, Any]) -> dict[str, Any] | None:
        keys = ("text", "resourceId", "description", "className")
        wanted = {k: selector[k] for k in keys if selector.get(k)}
        found = [e for e in self.phone.elements if all(e.get(k) == v for k, v in wanted.items())]
        instance = int(selector.get("instance") or 0)
        return found[instance] if len(found) > instance else None

    def _hierarchy(self) -> str:
        nodes = "".join(
            '<node index="{i}" text="{text}" resource-id="{rid}" class="{cls}" content-desc="{desc}" '
            'package="com.example" bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]" enabled="true" />'.format(
                i=i,
                text=e.get("text", ""),
                rid=e.get("resourceId", ""),
                cls=e.get("className", "android.widget.TextView"),
                desc=e.get("description", ""),
                b=e["bounds"],
            )
            for i, e in enumerate(self.phone.elements)
        )
        return (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="{self.phone.rotation}"><node index="0" text="" class="android.widget.FrameLayout" '
            f'package="com.example" bounds="[0,0][{self.phone.size[0]},{self.phone.size[1]}]">{nodes}</node></hierarchy>'
        )

    def call(self, method: str, params: Any) -> Any:
        phone = self.phone
        phone.rpc_calls.append((method, params))
        width, height = phone.size if phone.rotation % 2 == 0 else phone.size[::-1]
        if method == "deviceInfo":
            return {
                "currentPackageName": "com.example",
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


def _tiny_jpeg(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (max(1, width // 20), max(1, height // 20)), (30, 90, 160)).save(buffer, "JPEG")
    return buffer.getvalue()


class FakeAdbServer:
    """`with FakeAdbServer([FakePhone("serial-1", ...)]) as adb:` then use `adb.port`."""

    def __init__(self, phones: list[FakePhone], version: int = 41) -> None:
        self.phones = {p.serial: p for p in phones}
        self.agents = {p.serial: FakeAgent(p) for p in phones}
        self.version = version
        self.commands: list[str] = []
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                outer._serve(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        self._server.daemon_threads = True
        self._server.allow_reuse_address = True
        self._server.server_bind()
        self._server.server_activate()
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-adb", daemon=True)

    def __enter__(self) -> FakeAdbServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        for agent in self.agents.values():
            agent.close()

    # -- protocol -------------------------------------------------------------------
    @staticmethod
    def _read_request(sock: socket.socket) -> str | None:
        header = _recv_exact(sock, 4)
        if header is None:
            return None
        body = _recv_exact(sock, int(header, 16))
        return None if body is None else body.decode()

    @staticmethod
    def _okay(sock: socket.socket, payload: str | None = None) -> None:
        data = b"OKAY"
        if payload is not None:
            encoded = payload.encode()
            data += f"{len(encoded):04x}".encode() + encoded
        sock.sendall(data)

    @staticmethod
    def _fail(sock: socket.socket, message: str) -> None:
        encoded = message.encode()
        sock.sendall(b"FAIL" + f"{len(encoded):04x}".encode() + encoded)

    def _serve(self, sock: socket.socket) -> None:
        try:
            phone: FakePhone | None = None
            while True:
                request = self._read_request(sock)
                if request is None:
                    return
                self.commands.append(request)
                if phone is not None:
                    self._device_service(sock, phone, request)
                    return
                phone = self._host_service(sock, request)
                if phone is None:
                    return
        except (BrokenPipeError, ConnectionResetError):
            return
        finally:
            sock.close()

    def _host_service(self, sock: socket.socket, request: str) -> FakePhone | None:
        """Answer a host request; return the phone when the connection switches to it."""
        if request == "host:version":
            self._okay(sock, f"{self.version:04x}")
        elif request == "host:kill":
            self._okay(sock)
        elif request in ("host:devices", "host:devices-l"):
            long = request.endswith("-l")
            lines = [
                f"{s}\tdevice" + (" product:fake model:Fake_Phone device:fake transport_id:1" if long else "")
                for s in self.phones
            ]
            self._okay(sock, "".join(line + "\n" for line in lines))
        elif request.startswith(("host:transport:", "host:tport:serial:")):
            serial = request.rsplit(":", 1)[1] if request.startswith("host:transport:") else request[18:]
            phone = self.phones.get(serial)
            if phone is None:
                self._fail(sock, f"device '{serial}' not found")
                return None
            self._okay(sock)
            if request.startswith("host:tport"):
                sock.sendall((1).to_bytes(8, "little"))
            return phone
        elif request.startswith("host-serial:"):
            _, serial, command = request.split(":", 2)
            if serial not in self.phones:
                self._fail(sock, f"device '{serial}' not found")
            elif command == "get-state":
                self._okay(sock, "device")
            elif command == "features":
                self._okay(sock, "shell_v2,cmd,stat_v2")
            elif command == "list-forward":
                self._okay(sock, "")
            else:
                self._okay(sock)
        else:
            self._fail(sock, f"unknown host service {request}")
        return None

    def _device_service(self, sock: socket.socket, phone: FakePhone, request: str) -> None:
        if request.startswith("shell:"):
            command = request[6:]
            exit_marker = "; echo X4EXIT:$?"  # adbutils' shell2 over shell v1
            phone.commands.append(command.removesuffix(exit_marker))
            self._okay(sock)
            if command.endswith(exit_marker):
                sock.sendall(phone.shell_output(command[: -len(exit_marker)]) + b"X4EXIT:0")
            elif command.startswith("getevent") and "-t" in command.replace("-lt", "-t"):
                self._stream_trace(sock, phone)
            else:
                sock.sendall(phone.shell_output(command))
        elif request.startswith("tcp:"):
            agent = self.agents[phone.serial]
            self._okay(sock)
            _pipe(sock, socket.create_connection(("127.0.0.1", agent.port)))
        else:
            self._fail(sock, f"unsupported service {request}")

    def _stream_trace(self, sock: socket.socket, phone: FakePhone) -> None:
        """Replay the trace at its own pace, then hold the stream open like getevent does;
        a hang-up by the client is noticed within 0.1 s, even in a long pause."""
        started = time.monotonic()
        first: float | None = None
        try:
            for line in phone.trace.encode().splitlines(keepends=True):
                match = TRACE_TIME.match(line)
                if match:
                    stamp = float(match.group(1))
                    first = stamp if first is None else first
                    due = started + (stamp - first) / phone.trace_speed
                    if not _wait_unless_closed(sock, due):
                        break
                sock.sendall(line)
            else:
                _wait_unless_closed(sock, float("inf"))
        except OSError:
            pass
        phone.streams_closed_by_client += 1


def _wait_unless_closed(sock: socket.socket, until: float) -> bool:
    """Sleep until `until` (monotonic); False as soon as the peer closes the socket."""
    while (left := until - time.monotonic()) > 0:
        sock.settimeout(min(left, 0.1))
        try:
            if sock.recv(1024) == b"":
                return False
        except TimeoutError:
            continue
    sock.settimeout(None)
    return True


def _recv_exact(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _pipe(client: socket.socket, upstream: socket.socket) -> None:
    """Copy both ways until either side closes (the `tcp:` forward to the agent)."""

    splice(client, upstream, half_close=True).join(timeout=10)
    upstream.close()
