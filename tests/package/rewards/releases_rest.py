"""GitHub REST releases (echo network.json, an API client's traffic; github.com: no database diff).
Class a of issue 28, sibling-entity writes: "publish release v2.0.0 and delete the old release
candidate" creates a draft release, publishes it (`PATCH /releases/{new}`) and deletes another
release of the same repository (`DELETE /releases/1490`). The main entity is the new release
(two writes); the delete hits a sibling the instruction names by its tag (`v2.0.0-rc.1`), which the
listing read shows with its id beside v1.9.2 and v2.0.0-beta.3.

Real shapes: `Accept: application/vnd.github+json`, `X-GitHub-Api-Version: 2022-11-28`, release
objects with `id`, `node_id`, `tag_name`, `target_commitish`, `draft`, `prerelease`, `html_url`,
`upload_url`; 201 with a `Location` for the create, 204 with no body for the delete.

Attempts: `good` (later: another new release id and node id, request ids, clocks), `good_by_tag`
(finds the candidate with `GET /releases/tags/v2.0.0-rc.1` instead of the listing),
`good_delete_first` (deletes the candidate before creating): full marks. `empty`: 0.
`missing_write` (never deletes the candidate), `wrong_entity` (deletes v2.0.0-beta.3 instead) and
`stray_write` (does the task and also deletes v2.0.0-beta.3): must fail; with the delete left out
of the rubrics as a "stray" of the main entity, all three score full marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, task_doc, zip_files
from tests.package.rewards_kit import Truth, hexid

SITE = "https://github.com"
API = "https://api.github.com/repos/acme/widget"
NOTES = "First stable 2.x release: the new plugin API and the Rust parser."
INSTRUCTION = (
    "In acme/widget, publish release v2.0.0 from main titled 'Widget 2.0' with the notes "
    f"'{NOTES}', and delete the old release candidate v2.0.0-rc.1."
)
OLD = {  # existing releases: id -> (tag, prerelease, created)
    1477: ("v1.9.2", False, "2026-03-30T14:02:11Z"),
    1490: ("v2.0.0-rc.1", True, "2026-04-22T10:40:57Z"),
    1463: ("v2.0.0-beta.3", True, "2026-03-02T08:19:30Z"),
}


@dataclass
class Run:
    clock: Clock
    prefix: str
    new_id: int
    token: str


def _release(rid: int, tag: str, name: str, *, draft: bool, prerelease: bool, created: str, published: str | None,
             body: str = "") -> dict[str, Any]:  # fmt: skip
    return {
        "url": f"{API}/releases/{rid}",
        "assets_url": f"{API}/releases/{rid}/assets",
        "upload_url": f"https://uploads.github.com/repos/acme/widget/releases/{rid}/assets{{?name,label}}",
        "html_url": f"{SITE}/acme/widget/releases/tag/{tag}" if not draft else f"{SITE}/acme/widget/releases/tag/untagged-{hexid(str(rid), 20)}",
        "id": rid,
        "author": {"login": "dana-k", "id": 5120394, "type": "User"},
        "node_id": "RE_kwDOJ" + hexid(f"node/{rid}", 10).upper(),
        "tag_name": tag,
        "target_commitish": "main",
        "name": name,
        "draft": draft,
        "prerelease": prerelease,
        "created_at": created,
        "published_at": published,
        "assets": [],
        "tarball_url": f"{API}/tarball/{tag}",
        "zipball_url": f"{API}/zipball/{tag}",
        "body": body,
    }  # fmt: skip


def _existing(rid: int) -> dict[str, Any]:
    tag, pre, created = OLD[rid]
    return _release(rid, tag, tag, draft=False, prerelease=pre, created=created, published=created)


def play(run: Run, script: list[tuple[Any, ...]]) -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, f"{SITE}/acme/widget/releases", prefix=run.prefix)
    truth = Truth()
    headers = {"accept": "application/vnd.github+json", "x-github-api-version": "2022-11-28",
               "authorization": f"Bearer {run.token}", "user-agent": "gh/2.49.0"}  # fmt: skip
    seq = [0]

    def answer_headers(extra: dict[str, str] | None = None) -> dict[str, str]:
        seq[0] += 1
        return {"content-type": "application/json; charset=utf-8",
                "x-github-request-id": f"{hexid(run.prefix + str(seq[0]), 4).upper()}:{hexid(run.token + str(seq[0]), 6).upper()}",
                "x-ratelimit-remaining": str(4990 - seq[0]), **(extra or {})}  # fmt: skip

    created = run.clock.now.strftime("%Y-%m-%dT%H:%M:%SZ")
    for step in script:
        verb = step[0]
        if verb == "list":
            listing = [_existing(rid) for rid in (1490, 1477, 1463)]
            log.call("GET", f"{API}/releases?per_page=30", status=200, headers=headers, response=listing,
                     response_headers=answer_headers())  # fmt: skip
        elif verb == "by_tag":
            log.call("GET", f"{API}/releases/tags/{step[1]}", status=200, headers=headers,
                     response=_existing(next(r for r, v in OLD.items() if v[0] == step[1])), response_headers=answer_headers())  # fmt: skip
        elif verb == "create":
            body = {"tag_name": "v2.0.0", "target_commitish": "main", "name": "Widget 2.0", "body": NOTES,
                    "draft": True, "prerelease": False, "generate_release_notes": False}  # fmt: skip
            made = _release(run.new_id, "v2.0.0", "Widget 2.0", draft=True, prerelease=False, created=created,
                            published=None, body=NOTES)  # fmt: skip
            cid = log.call("POST", f"{API}/releases", status=201, headers=headers, body=body, response=made,
                           response_headers=answer_headers({"location": f"{API}/releases/{run.new_id}"}))  # fmt: skip
            truth.add(cid, "create the draft release v2.0.0")
        elif verb == "publish":
            published = run.clock.now.strftime("%Y-%m-%dT%H:%M:%SZ")
            made = _release(run.new_id, "v2.0.0", "Widget 2.0", draft=False, prerelease=False, created=created,
                            published=published, body=NOTES)  # fmt: skip
            cid = log.call("PATCH", f"{API}/releases/{run.new_id}", status=200, headers=headers,
                           body={"draft": False, "make_latest": "true"}, response=made, response_headers=answer_headers())  # fmt: skip
            truth.add(cid, "publish release v2.0.0")
        else:  # delete
            cid = log.call("DELETE", f"{API}/releases/{step[1]}", status=204, headers=headers, response=None,
                           response_headers=answer_headers({"content-type": ""}))  # fmt: skip
            truth.add(cid, f"delete release {OLD[step[1]][0]}")
    return log, truth


RECORDED = [("list",), ("create",), ("publish",), ("delete", 1490)]
SCRIPTS = {
    "good": RECORDED,
    "good_by_tag": [("by_tag", "v2.0.0-rc.1"), ("create",), ("publish",), ("delete", 1490)],
    "good_delete_first": [("list",), ("delete", 1490), ("create",), ("publish",)],
    "missing_write": [("list",), ("create",), ("publish",)],
    "wrong_entity": [("list",), ("create",), ("publish",), ("delete", 1463)],
    "stray_write": [("list",), ("create",), ("publish",), ("delete", 1490), ("delete", 1463)],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(Run(clock(2026, 5, 12, 9, 14), "r", 1502, "ghp_R3c0rd3dT0k3nAbCdEf0123456789xyzW"), RECORDED)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_widget_release"), log, None))
    attempts = {}
    for kind, script in SCRIPTS.items():
        later = Run(clock(2026, 5, 19, 16, 48), "a", 1519, "ghp_L4t3rT0k3nQwErTy9876543210zyxVu")
        attempt_log, _ = play(later, script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, None))
    empty = HttpLog(clock(2026, 5, 19, 16, 48), SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
