"""WeCom (WeChat Work) server API from an ops bot (mitmproxy HAR in a ZIP; no database diff). Class b
of issue 28, a failure inside a 2xx: WeCom answers every call HTTP 200 with `{"errcode": 0,
"errmsg": "ok"}` on success and another `errcode` on failure (45009 "api freq out of limit", the
rate limit). The recording gets a token, creates a group chat, adds a member, and posts a message
whose first try is rate-limited (errcode 45009) and is sent again.

Real shapes: `GET /cgi-bin/gettoken?corpid=...&corpsecret=...` (a secret in the query string),
`POST /cgi-bin/appchat/create|update|send?access_token=...`, the client-chosen `chatid`,
`userlist`, `add_user_list`, `msgtype: "text"`, `safe: 0`, WeCom's error texts with the `from ip`
and the `more info at https://open.work.weixin.qq.com/devtool/query?e=...` tail.

Attempts: `good` (later: another token, no rate limit), `good_after_limit` (rate-limited once and
resent, as recorded): full marks. `empty`: 0. `missing_write` (never adds zhaoliu): must fail.
`failed_write` posts the message, gets errcode 45009 inside the 200 and stops: the message was
never posted, so it must not get full marks.
"""

from __future__ import annotations

from typing import Any

from tests.package.corpus_kit import task_doc, zip_files
from tests.package.rewards_heldout.recorder import Recorder, at, mitmproxy_har
from tests.package.rewards_kit import Truth, hexid

API = "https://qyapi.weixin.qq.com/cgi-bin"
TEXT = "Launch checklist is pinned in the wiki; go/no-go on Friday 10:00."
INSTRUCTION = (
    "In WeCom, create the group chat 'Q3 launch' (chat id q3launch) owned by zhangsan with lisi and wangwu, "
    f"add zhaoliu to it, then post '{TEXT}' in it."
)
CORP = "ww8f3a91c2d7e6b5a4"


def _limit(seed: str) -> dict[str, Any]:
    hint = hexid(seed + "/hint", 24)
    return {"errcode": 45009, "errmsg": f"api freq out of limit, hint: [1779{hint[:6]}{hint}], from ip: 203.0.113.57, "
                                       "more info at https://open.work.weixin.qq.com/devtool/query?e=45009"}  # fmt: skip


def play(seed: str, start: Any, steps: list[str]) -> tuple[Recorder, Truth]:
    rec = Recorder(start)
    truth = Truth()
    token = hexid(f"{seed}/access_token", 43).replace("a", "A")
    headers = {"User-Agent": "ops-bot/2.3 (python-requests/2.31)", "Accept": "*/*"}
    ok = {"errcode": 0, "errmsg": "ok"}

    def post(action: str, body: dict[str, Any], answer: dict[str, Any]) -> str:
        return rec.send("POST", f"{API}/appchat/{action}?access_token={token}", status=200, body=body,
                        headers={**headers, "Content-Type": "application/json"}, answer=answer,
                        answer_headers={"Content-Type": "application/json; charset=UTF-8", "Error-Code": str(answer["errcode"]),
                                        "Error-Msg": answer["errmsg"].split(",")[0]})  # fmt: skip

    for step in steps:
        if step == "token":
            rec.send("GET", f"{API}/gettoken?corpid={CORP}&corpsecret={hexid(seed + '/corpsecret', 43)}", status=200, headers=headers,
                     answer={"errcode": 0, "errmsg": "ok", "access_token": token, "expires_in": 7200},
                     answer_headers={"Content-Type": "application/json; charset=UTF-8", "Error-Code": "0", "Error-Msg": "ok"})  # fmt: skip
        elif step == "create":
            cid = post("create", {"name": "Q3 launch", "owner": "zhangsan", "userlist": ["zhangsan", "lisi", "wangwu"], "chatid": "q3launch"},
                       {**ok, "chatid": "q3launch"})  # fmt: skip
            truth.add(Recorder.har_id(cid), "create the group chat q3launch")
        elif step == "add":
            cid = post("update", {"chatid": "q3launch", "add_user_list": ["zhaoliu"]}, ok)
            truth.add(Recorder.har_id(cid), "add zhaoliu")
        elif step in ("send", "send_limited"):
            body = {"chatid": "q3launch", "msgtype": "text", "text": {"content": TEXT}, "safe": 0}
            if step == "send_limited":
                cid = post("send", body, _limit(seed))
                truth.add(Recorder.har_id(cid), "post refused: errcode 45009 inside the 200", "failed")
                continue
            cid = post("send", body, ok)
            truth.add(Recorder.har_id(cid), "post the message")
    return rec, truth


RECORDED = ["token", "create", "add", "send_limited", "send"]
SCRIPTS = {
    "good": ["token", "create", "add", "send"],
    "good_after_limit": RECORDED,
    "missing_write": ["token", "create", "send"],
    "failed_write": ["token", "create", "add", "send_limited"],
}


def _zip(task: dict[str, Any], rec: Recorder) -> bytes:
    return zip_files({"task.json": task, "ops-bot.har": mitmproxy_har(rec)})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 5, 7, 1, 15), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, "https://work.weixin.qq.com", "rec_q3_launch_chat"), rec)
    attempts = {kind: _zip(task_doc("", "https://work.weixin.qq.com", f"attempt_{kind}"), play("later", at(2026, 5, 14, 2, 40), steps)[0])
                for kind, steps in SCRIPTS.items()}  # fmt: skip
    attempts["empty"] = _zip(
        task_doc("", "https://work.weixin.qq.com", "attempt_empty"), Recorder(at(2026, 5, 14, 2, 40))
    )
    return recording, attempts, truth.document(INSTRUCTION)
