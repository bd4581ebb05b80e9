"""Google Cloud Storage object writes with generation preconditions (echo network.json, a deploy
script's traffic; the bucket is the store: no separate database diff). Class d of issue 28,
concurrency values under names no word list holds, in a header and in query strings:
- the JSON API's metadata read gives `generation` and `metageneration` (strings of digits, a
  microsecond clock and a counter);
- the upload (the XML API: `PUT https://storage.googleapis.com/<bucket>/<object>`) sends the
  generation back in `x-goog-if-generation-match`, and its answer gives the new one only in its
  headers (`x-goog-generation`, `x-goog-metageneration`, an empty body);
- the metadata patch (`PATCH /storage/v1/b/<bucket>/o/<object>`) sends
  `?ifGenerationMatch=<new>&ifMetagenerationMatch=1` and its answer gives `metageneration` "2".

Attempts: `good` (later: other generations, etags, hashes), `good_412_retry` (its first upload
sends a stale generation, is refused `412 PreconditionFailed` in GCS's XML error, reads the
metadata again and uploads): full marks, whatever numbers they send. `empty`: 0.
`missing_write` (never sets Cache-Control), `wrong_entity` (writes flags/staging.json): must fail.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, jdump, task_doc, zip_files
from tests.package.rewards_kit import Truth

SITE = "https://storage.googleapis.com"
BUCKET = "acme-web-config"
CACHE = "no-cache, max-age=0"
INSTRUCTION = (
    f"In the bucket {BUCKET}, turn on checkout_v2 in flags/prod.json (keep the other flags as they are) "
    f"and set the object's Cache-Control to '{CACHE}'."
)
FLAGS = {"checkout_v2": False, "search_beta": False, "max_cart_items": 50}
XML_412 = ("<?xml version='1.0' encoding='UTF-8'?><Error><Code>PreconditionFailed</Code><Message>At least one of the "
           "pre-conditions you specified did not hold.</Message><Details>Precondition Failed</Details></Error>")  # fmt: skip


@dataclass
class Run:
    clock: Clock
    prefix: str
    token: str
    generation: int
    metageneration: int


def _hashes(data: bytes) -> tuple[str, str]:
    md5 = hashlib.md5(data, usedforsecurity=False)
    return md5.hexdigest(), base64.b64encode(md5.digest()).decode()


def play(run: Run, script: list[str], name: str = "flags/prod.json") -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, "https://console.cloud.google.com/storage/browser", prefix=run.prefix)
    truth = Truth()
    auth = {
        "authorization": f"Bearer {run.token}",
        "x-goog-api-client": "gl-python/3.12.2 gccl/2.16.0",
        "user-agent": "deploy-flags/1.3",
    }
    meta_url = f"{SITE}/storage/v1/b/{BUCKET}/o/{quote(name, safe='')}"
    content = jdump(FLAGS).encode()
    cache = "public, max-age=3600"

    def resource() -> dict[str, Any]:
        md5_hex, md5_b64 = _hashes(content)
        return {"kind": "storage#object", "id": f"{BUCKET}/{name}/{run.generation}", "selfLink": meta_url,
                "mediaLink": f"https://storage.googleapis.com/download/storage/v1/b/{BUCKET}/o/{quote(name, safe='')}?generation={run.generation}&alt=media",
                "name": name, "bucket": BUCKET, "generation": str(run.generation), "metageneration": str(run.metageneration),
                "contentType": "application/json", "storageClass": "STANDARD", "size": str(len(content)), "md5Hash": md5_b64,
                "cacheControl": cache, "crc32c": base64.b64encode(md5_hex[:4].encode()).decode(),
                "etag": base64.b64encode(f"{run.generation}{run.metageneration}".encode()).decode()[:12],
                "timeCreated": "2026-04-02T09:12:44.118Z", "updated": run.clock.now.isoformat()[:23] + "Z",
                "metadata": {"owner": "web-platform"}}  # fmt: skip

    for step in script:
        if step == "stat":
            log.call("GET", meta_url, status=200, headers=auth, response=resource())
        elif step == "download":
            log.call("GET", f"{meta_url}?alt=media", status=200, headers=auth, response=content.decode(),
                     response_headers={"content-type": "application/json", "x-goog-generation": str(run.generation)})  # fmt: skip
        elif step in ("upload", "stale_upload"):
            new = jdump({**FLAGS, "checkout_v2": True})
            sent = run.generation if step == "upload" else run.generation - 88_004_113
            headers = {**auth, "content-type": "application/json", "x-goog-if-generation-match": str(sent)}
            if step == "stale_upload":
                log.call("PUT", f"{SITE}/{BUCKET}/{name}", status=412, headers=headers, body=new, response=XML_412,
                         response_headers={"content-type": "application/xml; charset=UTF-8"})  # fmt: skip
                continue
            content = new.encode()
            run.generation += 1_913_337_402
            run.metageneration = 1
            md5_hex, md5_b64 = _hashes(content)
            cid = log.call("PUT", f"{SITE}/{BUCKET}/{name}", status=200, headers=headers, body=new, response="",
                           response_headers={"content-type": "text/html; charset=UTF-8", "etag": f'"{md5_hex}"',
                                             "x-goog-generation": str(run.generation), "x-goog-metageneration": "1",
                                             "x-goog-hash": f"md5={md5_b64}", "x-goog-stored-content-length": str(len(content)),
                                             "x-guploader-uploadid": "ADPycdt" + md5_hex[:24]})  # fmt: skip
            truth.add(cid, "upload the new flags (x-goog-if-generation-match)")
        else:  # cache
            cache = CACHE
            query = f"?ifGenerationMatch={run.generation}&ifMetagenerationMatch={run.metageneration}"
            run.metageneration += 1
            cid = log.call(
                "PATCH", meta_url + query, status=200, headers=auth, body={"cacheControl": CACHE}, response=resource()
            )
            truth.add(cid, "set Cache-Control (ifGenerationMatch, ifMetagenerationMatch)")
    return log, truth


RECORDED = ["stat", "download", "upload", "cache"]
SCRIPTS = {
    "good": RECORDED,
    "good_412_retry": ["download", "stale_upload", "stat", "upload", "cache"],
    "missing_write": ["stat", "download", "upload"],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(
        Run(clock(2026, 5, 19, 7, 45), "r", "ya29.a0AfB_R3c0rd3dAcc3ssT0k3n", 1775121164118204, 3), RECORDED
    )
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_flags_prod"), log, None))
    attempts = {}
    for kind, script in {**SCRIPTS, "wrong_entity": RECORDED}.items():
        later = Run(clock(2026, 6, 2, 18, 3), "a", "ya29.a0AfB_L4t3rAcc3ssT0k3nXyz", 1779200310907615, 1)
        attempt_log, _ = play(later, script, "flags/staging.json" if kind == "wrong_entity" else "flags/prod.json")
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, None))
    empty = HttpLog(clock(2026, 6, 2, 18, 3), SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
