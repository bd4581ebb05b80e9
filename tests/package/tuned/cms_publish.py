"""Blog CMS (echo network.json): edit a draft's title and publish it, sending the `revision` read
before; editor cursor state autosaved on the site, recommendations, experiment exposures and
logs posted to other hosts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://cms.greenfork.example"
TITLE = "Spring menu: wild garlic and morels"
INSTRUCTION = f"Rename the draft post p_88 to '{TITLE}' and publish it."
POSTS = {"p_88": "Spring menu draft", "p_91": "Summer menu draft"}


@dataclass
class Run:
    clock: Clock
    prefix: str
    revisions: dict[str, int]
    request_ids: list[str]


def play(run: Run, script: list[tuple[str, str]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/editor/p_88", prefix=run.prefix)
    state = {k: {"title": v, "status": "draft"} for k, v in POSTS.items()}
    updated: dict[str, dict[str, Any]] = {}
    log.call("GET", f"{SITE}/api/posts?status=draft", status=200,
             response={"posts": [{"id": k, "title": v} for k, v in POSTS.items()]})  # fmt: skip
    log.call("POST", "https://sdk.abtestly.example/v1/exposures", status=200,
             body={"experiment": "editor_v2", "variant": "b"}, response={"ok": True})  # fmt: skip
    opened: set[str] = set()
    for verb, post in script:
        if post not in opened:
            opened.add(post)
            log.call("GET", f"{SITE}/api/posts/{post}", status=200,
                     response={"id": post, **state[post], "revision": run.revisions[post]})  # fmt: skip
            log.call("POST", f"{SITE}/api/editor/state", status=204, response_headers={},
                     body={"post": post, "cursor": 1203, "scrollTop": 400})  # fmt: skip
        before = dict(state[post])
        if verb == "rename":
            state[post]["title"] = TITLE
            body: dict[str, Any] = {
                "title": TITLE,
                "revision": run.revisions[post],
                "requestId": run.request_ids.pop(0),
            }
            run.revisions[post] += 1
            log.call("PUT", f"{SITE}/api/posts/{post}", status=200, body=body,
                     response={"id": post, **state[post], "revision": run.revisions[post]})  # fmt: skip
        else:
            state[post]["status"] = "published"
            run.revisions[post] += 1
            log.call("POST", f"{SITE}/api/posts/{post}/publish", status=200,
                     body={"revision": run.revisions[post] - 1, "notifySubscribers": True},
                     response={"id": post, **state[post], "revision": run.revisions[post],
                               "publishedTitle": state[post]["title"]})  # fmt: skip
            log.call("POST", "https://recs.readnext.example/api/v3/related", status=200,
                     body={"post": post}, response={"related": [{"id": "p_52"}, {"id": "p_61"}]})  # fmt: skip
            updated.setdefault(post, {"before": {"id": post, **before}})
            updated[post]["published_title"] = state[post]["title"]
        updated.setdefault(post, {"before": {"id": post, **before}})
        updated[post]["after"] = {"id": post, **state[post]}
    rows = [{"before": u["before"], "after": u["after"]} for u in updated.values()]
    published = [{"post_id": k, "title": u["published_title"]} for k, u in updated.items() if "published_title" in u]
    return log, diff(posts={"updated": rows}, publications={"inserted": published})


SCRIPT = [("rename", "p_88"), ("publish", "p_88")]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("publish", "p_88")],
    "wrong_entity": [("rename", "p_91"), ("publish", "p_88")],
    "wrong_order": [("publish", "p_88"), ("rename", "p_88")],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(Run(clock(2026, 5, 10, 7, 30), "r", {"p_88": 7, "p_91": 2}, ["rq-1f2e3d"]), SCRIPT)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_cms_p88"), log, dbdiff))
    attempts = {}
    for kind, script in VARIANTS.items():
        run = Run(clock(2026, 5, 15, 21, 10), "a", {"p_88": 19, "p_91": 4}, ["rq-9a8b7c"])
        attempt_log, attempt_diff = play(run, script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 5, 15, 21, 10), SITE), None)
    )
    return recording, attempts
