"""What the loop says to the model: the system prompt and the notes after a turn.

The rules themselves live in `policy.py`; this module only words them.
"""

from __future__ import annotations

import re

from rlauto_core.agent.policy import Fuse, PolicyNotice

SYSTEM = """You operate an Android phone for the user through tools. Work until the task is done.

How to work:
- Look first: `screenshot` (the image follows the tool results) and `ui_tree` (elements with text,
  resource-id, content-desc, clickable, bounds). After actions the loop attaches a fresh screenshot.
- Act with `tap` by text, resource_id or description exactly as ui_tree shows them; coordinates only
  when no selector works. `type_text` types into the focused field (tap it first). `swipe` direction
  is the way the finger moves (up scrolls the content down). `press_key`, `app_start`, `app_stop`.
- `wait` when the phone is busy (at most 30 s a call); waiting and looking never count as repeats.
- Deliverables are files of this run: `save_screenshot` (files/NAME.jpg) and `write_file` (files/NAME).
- Report important progress, a change of method or missing information with `report_task`; do not
  narrate every tap.
- The task is finished ONLY when `report_task` with kind "completion" is accepted: todo empty, the
  items you checked, the evidence, and every deliverable as a files/... path. Saying "done" in a
  message changes nothing. Check the whole goal before you report completion. If the goal already
  holds when you look, do not do it again: report completion with what shows it.
- If the task cannot be done on this phone as asked (the app, setting or item does not exist, the
  request contradicts itself), do not loop and do not claim completion: `report_task` with kind
  "blocked", saying why and what you checked. Change nothing.
- If something fails, diagnose: say what you tried and what happened, then choose another method.
  Hand the phone to a person with `request_takeover` ONLY for login, 2FA, captcha, missing
  information or authorisation; a person acts, then you get a fresh screenshot and their note.
- Operate only the target phone {serial}. Never type passwords or codes you were not given."""

_CLAIMS_DONE = re.compile(r"(?i)\b(done|finished|completed?|all set)\b|完成|做好|已经好|已經好")
_SAYS_CANNOT = re.compile(r"(?i)\b(can ?not|can't|unable|impossible|not possible)\b|无法|無法|做不到|不能")


def system_prompt(serial: str) -> str:
    return SYSTEM.replace("{serial}", serial)


def opening(instruction: str, digest: list[str], dropped: int) -> str:
    text = f"TASK: {instruction}"
    if digest:
        head = f"Earlier steps of this run, shortened ({dropped + len(digest)} in all"
        head += f", the oldest {dropped} not listed):" if dropped else "):"
        text += "\n\n" + head + "\n" + "\n".join(f"- {line}" for line in digest)
    return text


def notice_text(notice: PolicyNotice, instruction: str) -> str:
    """The words of a hint, a re-route or a pause."""
    what = {
        Fuse.SAME_ACTION: f"the same action ({notice.detail[:200]})",
        Fuse.SAME_ERROR: f"the same error ({notice.detail[:200]})",
        Fuse.FAILURES_IN_A_ROW: "failing actions",
    }[notice.fuse]
    if notice.kind == "hint":
        return (
            f"Note: {notice.streak} times in a row now: {what}. If the screen did not change, "
            "look again (ui_tree) before repeating it."
        )
    if notice.kind == "reroute":
        return (
            f"This method is not working: {notice.streak} times in a row {what}. Keep the goal "
            f"({instruction[:300]}) and what you learned, and try a DIFFERENT method: another element, "
            "another path through the app, scrolling to find it, going back and starting over."
        )
    return f"The run is paused for a person to look: {notice.streak} times in a row {what}."


def after_plain_text(text: str) -> str:
    """The note after an answer without tool calls."""
    if _SAYS_CANNOT.search(text):
        return (
            "Do not give up yet: diagnose. Say what you tried and what happened, then pick another method "
            "and go on with the tools. Only login, 2FA, captcha, missing information or authorisation "
            "are for a person (request_takeover)."
        )
    if _CLAIMS_DONE.search(text):
        return (
            "Saying it is done does not finish the task. Check the whole goal, then call report_task "
            'with kind "completion": the checked items, the evidence, an empty todo and the deliverables.'
        )
    return "Go on with the task using the tools, or report completion with report_task."


def takeover_done(reason: str, note: str | None) -> str:
    said = f' Their note: "{note}"' if note else " They left no note."
    return f"A person finished the {reason} step on the phone.{said} The fresh screen is attached; go on with the task."


def resumed(note: str | None) -> str:
    said = f' Their note: "{note}"' if note else ""
    return f"The run was resumed by a person after a pause.{said} The fresh screen is attached; go on with the task."


SKIPPED_AFTER_END = "not executed: the run ended before this call"
SKIPPED_AFTER_TAKEOVER = "not executed: a person took over the phone; look at the fresh screen first"
SKIPPED_AT_CAP = "not executed: this run's cap on tool calls is reached"
NO_PERSON = "no person can take over in this run; diagnose and try another method yourself"
