"""Code host (echo network.json), read-only: how many open pull requests a repository has. The
answer is a count the list's answer states; attempts report it in task.json `task.answer`."""

from __future__ import annotations

from tests.package.corpus_kit import HttpLog, api_files, clock, task_doc, zip_files

SITE = "https://git.forge.example"
INSTRUCTION = "How many open pull requests does the acme/web-app repository have right now?"
PULLS = {"acme/web-app": [412, 415, 418], "acme/api-gateway": [77, 80, 81, 85, 86]}


def play(prefix: str, repos: list[str], day: int) -> HttpLog:
    log = HttpLog(clock(2026, 5, day, 11, 0), f"{SITE}/acme", prefix=prefix)
    log.call("GET", f"{SITE}/api/v4/user", status=200, response={"id": 7, "login": "mira"})
    for repo in repos:
        numbers = PULLS[repo]
        log.call("GET", f"{SITE}/api/v4/repos/{repo}/pulls?state=open&per_page=30", status=200,
                 response={"total_count": len(numbers), "items": [{"number": n, "state": "open"} for n in numbers]})  # fmt: skip
        log.call("POST", f"{SITE}/api/v4/user/recently-viewed", status=204, response_headers={}, body={"repo": repo})
    return log


VARIANTS = {
    "good": (["acme/web-app"], "acme/web-app has 3 open pull requests."),
    "missing_write": ([], "Probably 3."),
    "wrong_entity": (["acme/api-gateway"], "There are 5 open pull requests."),
    "wrong_answer": (["acme/web-app"], "It has 30 open pull requests."),
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_pulls"), play("r", ["acme/web-app"], 17), None))
    attempts = {}
    for kind, (repos, answer) in VARIANTS.items():
        attempts[kind] = zip_files(
            api_files(task_doc("", SITE, f"attempt_{kind}", answer=answer), play("a", repos, 27), None)
        )
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 5, 27, 11, 0), SITE), None)
    )
    return recording, attempts
