"""Order between writes on one entity: checked when the recording shows it and the instruction says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlauto_core.checkers import score
from rlauto_core.importers import import_bytes, import_path
from rlauto_core.package.ordering import clauses
from tests.package.corpus_kit import clock, mcp_files, task_doc, zip_files
from tests.package.helpers import package_from
from tests.package.tuned import chat_invite

TUNED = Path(__file__).resolve().parent / "tuned"
HELDOUT = Path(__file__).resolve().parent / "heldout"
TEXT = chat_invite.TEXT


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("Add sam.k to #standup, then post 'hi' there.", ["Add sam.k to #standup", "post 'hi' there."]),
        ("Invite Omar to #ops and then tell the room 'x'", ["Invite Omar to #ops", "tell the room 'x'"]),
        ("Invite Dana and post the summary.", ["Invite Dana and post the summary."]),
        ("After inviting Dana, post the summary.", ["inviting Dana", "post the summary."]),
        ("Post the summary after inviting Dana.", ["inviting Dana.", "Post the summary"]),
        ("Invite Dana before posting the summary.", ["Invite Dana", "posting the summary."]),
        ("邀请 Dana，然后发布摘要。", ["邀请 Dana，", "发布摘要。"]),
    ],
)
def test_the_instruction_splits_into_ordered_steps(instruction: str, expected: list[str]) -> None:
    assert [c.strip() for c in clauses(instruction)] == [e.strip() for e in expected]


def chat(instruction: str, script: list[tuple[str, str, str]] | None = None) -> bytes:
    run = chat_invite.Run(clock(2026, 5, 9, 9, 0), "c", ["M_70001"], ["b3a1c9e2-77f0-4c1e-9d2a-5e8f01a2b3c4"])
    log, diff = chat_invite.play(run, script or chat_invite.SCRIPT)
    return zip_files(mcp_files(task_doc(instruction, "mcp://chat", "rec"), log, diff))


def order_rubrics(data: bytes) -> list[str]:
    package = package_from(import_bytes(data, "chat.zip"))
    return [r.checker_key or "" for r in package.task.rubrics if r.checker_key and r.checker_key.startswith("order_")]


def test_then_orders_the_invite_before_the_post() -> None:
    package = package_from(import_path(TUNED / "recordings" / "chat_invite.zip"))
    assert package.rubric_checkers["order_c4_c6"] == {"kind": "order", "before": "core_c4", "after": "core_c6"}
    check = package.validation.self_check
    assert check is not None and check.problems == []
    [swap] = [m for m in check.mutants if m.kind == "swap"]
    assert swap.call_ids == ["c4", "c6"] and swap.caught
    wrong = score(package, import_path(TUNED / "attempts" / "chat_invite" / "wrong_order.zip"))
    assert not wrong.passed and any(r.id and "wrong order" in r.reason for r in wrong.rubrics)


def test_and_orders_nothing_so_posting_first_is_fine() -> None:
    instruction = f"Add sam.k to the #platform-standup channel and post '{TEXT}' there."
    package = package_from(import_bytes(chat(instruction), "chat.zip"))
    assert not [k for k in package.rubric_checkers if k.startswith("order_")]
    posted_first = [("post", "platform-standup", TEXT), ("invite", "platform-standup", "sam.k")]
    report = score(package, import_bytes(chat("", posted_first), "attempt.zip"))
    assert report.passed, [r for r in report.rubrics if not r.passed]


def test_no_order_when_the_recording_did_otherwise_or_the_entities_differ() -> None:
    # the instruction says post first, the recording invited first: the recording does not show it
    assert order_rubrics(chat(f"Post '{TEXT}' in #platform-standup, then add sam.k to it.")) == []
    # invite into one channel, then post in another: no single entity to order writes on
    other = [("invite", "platform-random", "sam.k"), ("post", "platform-standup", TEXT)]
    assert order_rubrics(chat(f"Add sam.k to #platform-random, then post '{TEXT}' in #platform-standup.", other)) == []


def test_an_instruction_the_analyzer_wrote_implies_no_order() -> None:
    package = package_from(import_bytes(chat(""), "chat.zip"))
    assert package.task.instruction_source == "offline" and ", then " in package.task.instruction
    assert not [k for k in package.rubric_checkers if k.startswith("order_")]


def test_graphql_writes_are_placed_by_their_operation() -> None:
    """One endpoint for every write: the operation name says which step of the instruction it is."""
    package = package_from(import_path(HELDOUT / "recordings" / "storefront_graphql.zip"))
    lines, note = "core_r3", "core_r5"  # the writes by their essential features: no cascade
    assert package.rubric_checkers["order_r3_r5"] == {"kind": "order", "before": lines, "after": note}
    titles = [r.title for r in package.task.rubrics]
    assert (
        "POST /api/2024-04/graphql.json (cartLinesAdd) happens before POST /api/2024-04/graphql.json (cartNoteUpdate)"
        in titles
    )
    assert not [r for r in package.task.rubrics if "(cart)" in r.title]  # the cart query is a read
