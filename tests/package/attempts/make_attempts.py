"""Write agent attempts for each example recording to tests/package/attempts/<example>/<kind>.zip.

Run: `python tests/package/attempts/make_attempts.py`. Deterministic. Each attempt is an echo
recording (formats.md section 1) derived from the example by hand-written edits, independent of
the analyzer: `good` redoes the task with new server-made ids, new timestamps, new call ids and
different background noise; `empty` does nothing; `missing_write` skips one write; `wrong_entity`
aims one write at another entity; `wrong_order` swaps two dependent writes.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import zipfile
from dataclasses import dataclass, field
from datetime import timedelta
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from rlauto_core.importers import import_path  # noqa: E402
from rlauto_core.recording import Call, HttpCall, Recording, ToolCall  # noqa: E402

EXAMPLES = ROOT / "examples" / "recordings"
CAPTURES = ROOT / "examples" / "captures"
OUT = Path(__file__).resolve().parent
ZIP_DATE = (2026, 6, 1, 9, 0, 0)
KINDS = ("good", "empty", "missing_write", "wrong_entity", "wrong_order")


@dataclass
class Plan:
    """Hand-written knowledge of one example: which ids the server made, what to break."""

    invented: dict[str, str]  # server-made id -> the id a redo gets
    missing: str  # call id of a write to leave out
    wrong_entity: tuple[str, str, str]  # (call id, entity id, another entity id) in its inputs
    swap: tuple[str, str]  # two dependent writes (call ids), recorded order
    noise: list[Call] = field(default_factory=list)


def _http(cid: str, method: str, url: str, status: int, body: str | None = None) -> HttpCall:
    return HttpCall(id=cid, method=method, url=url, status=status, response_body=body, resource_type="fetch")


def _tool(cid: str, tool: str, arguments: dict[str, Any] | None = None) -> ToolCall:
    return ToolCall(id=cid, tool=tool, arguments=arguments or {}, result={"content": [], "isError": False})


PLANS: dict[str, Plan] = {
    "discord_reply.zip": Plan(
        invented={"1237702555666777888": "1237709999000111222"},
        missing="c11",
        wrong_entity=("c9", "1101987654321098765", "1101987654321000042"),
        swap=("c9", "c11"),
        noise=[
            _tool("n1", "discord_heartbeat"),
            _tool("n2", "discord_start_typing", {"channelId": "1101987654321098765"}),
        ],
    ),
    "issue_tracker.zip": Plan(
        invented={"4812": "5120", "128": "131"},
        missing="r21",
        wrong_entity=("r17", "128", "127"),
        swap=("r12", "r17"),
        noise=[
            _http("n1", "GET", "https://tracker.example.com/static/app.3c1d9e.js", 200),
            _http("n2", "POST", "https://www.google-analytics.com/g/collect?v=2&tid=G-TRACK", 204),
        ],
    ),
    "notes_jsonrpc.zip": Plan(
        invented={"n_318": "n_402"},
        missing="call-7",
        wrong_entity=("5", "n_318", "n_301"),
        swap=("call-3", "5"),
        noise=[_tool("n1", "notes_ping")],
    ),
    "project_board.har": Plan(
        invented={"card_881": "card_905"},
        missing="6",
        wrong_entity=("5", "b_12", "b_14"),
        swap=("5", "6"),
        noise=[_http("n1", "GET", "https://board.example.com/assets/fonts/inter.woff2", 200)],
    ),
    "project_board_firefox.zip": Plan(
        invented={"card_884": "card_907"},
        missing="3",
        wrong_entity=("2", "b_12", "b_14"),
        swap=("2", "3"),
        noise=[_http("n1", "GET", "https://board.example.com/favicon.ico", 200)],
    ),
    "shop_checkout.zip": Plan(
        invented={"ci_5521": "ci_6120", "cart_3307": "cart_3410", "ord_90311": "ord_90422"},
        missing="r16",
        wrong_entity=("r11", "sku_7741", "sku_7742"),
        swap=("r11", "r13"),
        noise=[_http("n1", "POST", "https://shop.example.com/_vercel/insights/event", 202)],
    ),
    "slack_incident_channel.zip": Plan(
        invented={"C07INC22910": "C07INC30001", "1778206481.000200": "1778470001.000100"},
        missing="c8",
        wrong_entity=("c10", "C07INC22910", "C07GENERAL1"),
        swap=("c6", "c8"),
        noise=[_tool("n1", "slack_auth_test"), _tool("n2", "slack_get_presence", {"user": "U04KIM0001"})],
    ),
}


def swap_json(node: Any, mapping: dict[str, str]) -> Any:
    """Every string or number equal to a mapped id becomes the new id (numbers stay numbers)."""
    if isinstance(node, dict):
        return {k: swap_json(v, mapping) for k, v in node.items()}
    if isinstance(node, list):
        return [swap_json(v, mapping) for v in node]
    if isinstance(node, str):
        if node in mapping:
            return mapping[node]
        if node.lstrip()[:1] in ("{", "["):
            try:
                return json.dumps(swap_json(json.loads(node), mapping), separators=(",", ":"), ensure_ascii=False)
            except ValueError:
                return node
        return node
    if isinstance(node, int) and not isinstance(node, bool) and str(node) in mapping:
        return int(mapping[str(node)]) if mapping[str(node)].isdigit() else mapping[str(node)]
    return node


def swap_url(url: str, mapping: dict[str, str]) -> str:
    for old, new in mapping.items():
        url = re.sub(rf"(?<=[/=]){re.escape(old)}(?=[/?&#]|$)", new, url)
    return url


def swap_body(body: str | None, encoding: str, mapping: dict[str, str]) -> str | None:
    if body is None:
        return None
    text = base64.b64decode(body).decode("utf-8") if encoding == "base64" else body
    try:
        text = json.dumps(swap_json(json.loads(text), mapping), separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        for old, new in mapping.items():
            text = re.sub(rf"(?<==){re.escape(old)}(?=&|$)", new, text)
    return base64.b64encode(text.encode("utf-8")).decode("ascii") if encoding == "base64" else text


def swap_call(call: Call, mapping: dict[str, str], inputs_only: bool = False) -> Call:
    if isinstance(call, HttpCall):
        update: dict[str, Any] = {
            "url": swap_url(call.url, mapping),
            "request_body": swap_body(call.request_body, call.request_body_encoding, mapping),
        }
        if not inputs_only:
            update["response_body"] = swap_body(call.response_body, call.response_body_encoding, mapping)
        return rebuilt(call, update)
    update = {"arguments": swap_json(call.arguments, mapping)}
    if not inputs_only:
        update["result"] = swap_json(call.result, mapping)
    return rebuilt(call, update)


def rebuilt(call: Call, update: dict[str, Any]) -> Call:
    """A changed copy built afresh (a model copy would keep what the call cached from its old url)."""
    return type(call).model_validate({**call.model_dump(), **update})


def noise_ids(recording: Recording) -> set[str]:
    """Background calls of the example, by their well-known look (static, beacons, presence...)."""
    pattern = re.compile(
        r"\.(js|css|png|woff2?|svg|ico)(\?|$)|collect|segment|sentry|insights|heartbeat|typing|presence|"
        r"current_user|auth_test|whoami|ping|OPTIONS",
        re.I,
    )
    found = set()
    for call in recording.calls:
        text = f"{call.method} {call.url}" if isinstance(call, HttpCall) else call.tool
        if pattern.search(text) or (isinstance(call, HttpCall) and call.status in (101, 304)):
            found.add(call.id)
    return found


def redo(recording: Recording, plan: Plan, calls: list[Call]) -> list[Call]:
    """The calls as a second run would record them: new made-up ids, later clock, fresh call ids."""
    noisy = noise_ids(recording)
    kept = [swap_call(c, plan.invented) for c in calls if c.id not in noisy]
    out: list[Call] = []
    for number, call in enumerate([*plan.noise[:1], *kept, *plan.noise[1:]], start=1):
        started = call.started_at + timedelta(days=3, minutes=17) if call.started_at else None
        headers = [h for h in getattr(call, "request_headers", []) if h[0].lower() == "content-type"]
        update: dict[str, Any] = {"id": f"a{number}", "started_at": started}
        if isinstance(call, HttpCall):
            update["request_headers"] = headers
        out.append(rebuilt(call, update))
    return out


def _echo_http(call: HttpCall) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": call.id,
        "startedAt": call.started_at.isoformat() if call.started_at else None,
        "method": call.method,
        "url": call.url,
        "resourceType": call.resource_type or "fetch",
        "requestHeaders": dict(call.request_headers),
        "requestBody": call.request_body,
        "status": call.status,
        "responseHeaders": dict(call.response_headers),
        "responseBody": call.response_body,
    }
    if call.request_body_encoding == "base64":
        item["requestBodyEncoding"] = "base64"
    if call.response_body_encoding == "base64":
        item["responseBodyEncoding"] = "base64"
    return item


def _echo_tool(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "server": call.server,
        "tool": call.tool,
        "arguments": call.arguments,
        "result": call.result,
        "isError": call.is_error,
        "startedAt": call.started_at.isoformat() if call.started_at else None,
    }


def attempt_zip(recording: Recording, calls: list[Call], dbdiff: dict[str, Any] | None) -> bytes:
    files: dict[str, Any] = {"task.json": {"metadata": {"recordingId": "attempt"}, "task": {"instruction": ""}}}
    http = [c for c in calls if isinstance(c, HttpCall)]
    tools = [c for c in calls if isinstance(c, ToolCall)]
    if recording.mode.value == "mcp":
        files["mcp_calls.json"] = {"version": 1, "calls": [_echo_tool(c) for c in tools]}
    else:
        files["network.json"] = {"version": 1, "requests": [_echo_http(c) for c in http]}
    if dbdiff is not None:
        files["dbdiff.json"] = dbdiff
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, json.dumps(content, indent=1, ensure_ascii=False) + "\n")
    return buffer.getvalue()


def build_attempts(example: Path) -> dict[str, bytes]:
    recording = import_path(example)
    plan = PLANS[example.name]
    calls = recording.calls
    diff = recording.dbdiff.model_dump(mode="json") if recording.dbdiff else None
    new_diff = swap_json(diff, plan.invented) if diff is not None else None
    order = [c.id for c in calls]
    missing = [c for c in calls if c.id != plan.missing]
    cid, old, new = plan.wrong_entity
    wrong = [swap_call(c, {old: new}, inputs_only=True) if c.id == cid else c for c in calls]
    a, b = order.index(plan.swap[0]), order.index(plan.swap[1])
    swapped = list(calls)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    return {
        "good": attempt_zip(recording, redo(recording, plan, calls), new_diff),
        "empty": attempt_zip(recording, [], None),
        "missing_write": attempt_zip(recording, redo(recording, plan, missing), new_diff),
        "wrong_entity": attempt_zip(recording, redo(recording, plan, wrong), new_diff),
        "wrong_order": attempt_zip(recording, redo(recording, plan, swapped), new_diff),
    }


def main() -> None:
    for example in sorted([*EXAMPLES.iterdir(), *CAPTURES.iterdir()]):
        if example.name not in PLANS:
            continue
        folder = OUT / example.name.rsplit(".", 1)[0]
        folder.mkdir(exist_ok=True)
        for kind, data in build_attempts(example).items():
            (folder / f"{kind}.zip").write_bytes(data)
    print(f"attempts written under {OUT}")


if __name__ == "__main__":
    main()
