"""Drupal 10 JSON:API from a decoupled editor (Firefox HAR in a ZIP; no database diff). Classes a and
e of issue 28: the instruction makes a new article and retires last year's, two entities of one
kind (`node--article`). Writes: `POST /jsonapi/node/article` (201, `Location`, the new uuid), `PATCH
/jsonapi/node/article/<new uuid>` to publish it (the main entity, two writes), `PATCH
/jsonapi/node/article/<old uuid>` with `status: false` (the sibling the instruction names, shown by
the listing beside "Spring menu 2025 (wine pairings)" and "Summer menu 2025"). Every resource
carries its uuid `id` beside `drupal_internal__nid`.

Real shapes: `application/vnd.api+json` both ways, `{"jsonapi": {"version": "1.0"}, "data": {"type",
"id", "attributes", "relationships", "links"}}`, `filter[title][operator]=CONTAINS`, the cookie
session's CSRF token read from `/session/token` (text) and sent as `X-CSRF-Token` by every write.

Attempts: `good` (later: other uuids, nids, revision ids, CSRF token), `good_unpublish_first`:
full marks. `empty`: 0. `missing_write` (last year's menu left published), `wrong_entity`
(unpublishes the wine pairings article instead), `stray_write` (also unpublishes Summer menu 2025):
must fail.
"""

from __future__ import annotations

import json
from typing import Any

from tests.package.corpus_kit import task_doc, zip_files
from tests.package.rewards_heldout.recorder import Recorder, at, firefox_har
from tests.package.rewards_kit import Truth, hexid, uuid_from

SITE = "https://www.harbourbistro.example"
BODY = "Wild garlic, Jersey Royals and rhubarb are back."
INSTRUCTION = (
    f"Publish a new article 'Spring menu 2026' with the body '{BODY}', tagged Menus, and unpublish last "
    "year's 'Spring menu 2025'."
)
API = "application/vnd.api+json"
ARTICLES = {uuid_from("drupal/spring-2025"): ("Spring menu 2025", 312, "/menus/spring-2025"),
            uuid_from("drupal/spring-2025-wine"): ("Spring menu 2025 (wine pairings)", 318, "/menus/spring-2025-wine"),
            uuid_from("drupal/summer-2025"): ("Summer menu 2025", 331, "/menus/summer-2025")}  # fmt: skip
SPRING, WINE, SUMMER = list(ARTICLES)
MENUS_TAG = uuid_from("drupal/tag/menus")


def _resource(uid: str, title: str, nid: int, vid: int, published: bool, alias: str | None) -> dict[str, Any]:
    return {"type": "node--article", "id": uid, "links": {"self": {"href": f"{SITE}/jsonapi/node/article/{uid}?resourceVersion=id%3A{vid}"}},
            "attributes": {"drupal_internal__nid": nid, "drupal_internal__vid": vid, "langcode": "en", "status": published,
                           "title": title, "path": {"alias": alias, "pid": None if alias is None else nid + 40, "langcode": "en"}},
            "relationships": {"field_tags": {"data": [{"type": "taxonomy_term--tags", "id": MENUS_TAG, "meta": {"drupal_internal__target_id": 7}}]}}}  # fmt: skip


def play(seed: str, start: Any, steps: list[tuple[str, ...]]) -> tuple[Recorder, Truth]:
    rec = Recorder(start)
    truth = Truth()
    new_uuid, new_nid, vid = (
        uuid_from(f"{seed}/new"),
        (349 if seed == "rec" else 362),
        (1203 if seed == "rec" else 1288),
    )
    csrf = hexid(f"{seed}/csrf", 43)
    cookie = {"Cookie": f"SSESS5f0a77c1d3b2e9={hexid(seed + '/sess', 48)}", "Accept": API}
    write = {**cookie, "Content-Type": API, "X-CSRF-Token": csrf}
    doc = {"Content-Type": API}
    for step in steps:
        if step[0] == "token":
            rec.send(
                "GET",
                f"{SITE}/session/token",
                status=200,
                answer=csrf,
                headers=cookie,
                answer_headers={"Content-Type": "text/plain; charset=UTF-8"},
            )
        elif step[0] == "list":
            data = [_resource(u, t, n, n * 3, True, a) for u, (t, n, a) in ARTICLES.items()]
            rec.send("GET", f"{SITE}/jsonapi/node/article?filter%5Btitle%5D%5Boperator%5D=CONTAINS&filter%5Btitle%5D%5Bvalue%5D=menu"
                            "&fields%5Bnode--article%5D=title,status,drupal_internal__nid,path,field_tags&sort=-created", status=200,
                     headers=cookie, answer={"jsonapi": {"version": "1.0", "meta": {"links": {"self": {"href": "http://jsonapi.org/format/1.0/"}}}},
                                             "data": data, "links": {"self": {"href": f"{SITE}/jsonapi/node/article"}}}, answer_headers=doc)  # fmt: skip
        elif step[0] == "create":
            body = {"data": {"type": "node--article", "attributes": {"title": "Spring menu 2026", "status": False,
                                                                     "body": {"value": f"<p>{BODY}</p>", "format": "basic_html"}},
                             "relationships": {"field_tags": {"data": [{"type": "taxonomy_term--tags", "id": MENUS_TAG}]}}}}  # fmt: skip
            made = _resource(new_uuid, "Spring menu 2026", new_nid, vid, False, None)
            cid = rec.send("POST", f"{SITE}/jsonapi/node/article", status=201, body=json.dumps(body), headers=write,
                           answer={"jsonapi": {"version": "1.0"}, "data": made, "links": {"self": {"href": f"{SITE}/jsonapi/node/article/{new_uuid}"}}},
                           answer_headers={**doc, "Location": f"{SITE}/jsonapi/node/article/{new_uuid}"})  # fmt: skip
            truth.add(Recorder.har_id(cid), "create the article Spring menu 2026")
        elif step[0] == "publish":
            body = {"data": {"type": "node--article", "id": new_uuid, "attributes": {"status": True}}}
            cid = rec.send("PATCH", f"{SITE}/jsonapi/node/article/{new_uuid}", status=200, body=json.dumps(body), headers=write,
                           answer={"jsonapi": {"version": "1.0"}, "data": _resource(new_uuid, "Spring menu 2026", new_nid, vid + 1, True, "/menus/spring-2026")},
                           answer_headers=doc)  # fmt: skip
            truth.add(Recorder.har_id(cid), "publish Spring menu 2026")
        else:  # unpublish an existing article
            uid = step[1]
            title, nid, alias = ARTICLES[uid]
            body = {"data": {"type": "node--article", "id": uid, "attributes": {"status": False}}}
            cid = rec.send("PATCH", f"{SITE}/jsonapi/node/article/{uid}", status=200, body=json.dumps(body), headers=write,
                           answer={"jsonapi": {"version": "1.0"}, "data": _resource(uid, title, nid, nid * 3 + 1, False, alias)}, answer_headers=doc)  # fmt: skip
            truth.add(Recorder.har_id(cid), f"unpublish {title}")
    return rec, truth


RECORDED = [("token",), ("list",), ("create",), ("publish",), ("unpublish", SPRING)]
SCRIPTS = {
    "good": RECORDED,
    "good_unpublish_first": [("token",), ("list",), ("unpublish", SPRING), ("create",), ("publish",)],
    "missing_write": [("token",), ("list",), ("create",), ("publish",)],
    "wrong_entity": [("token",), ("list",), ("create",), ("publish",), ("unpublish", WINE)],
    "stray_write": [("token",), ("list",), ("create",), ("publish",), ("unpublish", SPRING), ("unpublish", SUMMER)],
}


def _zip(task: dict[str, Any], rec: Recorder) -> bytes:
    return zip_files({"task.json": task, "editor.har": firefox_har(rec, "Content editor")})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 3, 30, 9, 12), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, SITE, "rec_spring_menu"), rec)
    attempts = {kind: _zip(task_doc("", SITE, f"attempt_{kind}"), play("later", at(2026, 4, 8, 15, 40), steps)[0])
                for kind, steps in SCRIPTS.items()}  # fmt: skip
    attempts["empty"] = _zip(task_doc("", SITE, "attempt_empty"), Recorder(at(2026, 4, 8, 15, 40)))
    return recording, attempts, truth.document(INSTRUCTION)
