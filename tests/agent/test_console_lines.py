"""The agent console's takeover lines when the follower never sees the pause: a run paused and
handed back between two of its polls still tells "a person is needed", before the hand-back."""

from __future__ import annotations

import pytest

from flows.cli.agent_cmd import Console
from rlauto_core.agent.events.events import TakeoverEnded, TakeoverRequested


def test_a_pause_handed_back_between_two_polls_is_still_told_before_the_hand_back(
    capsys: pytest.CaptureFixture[str],
) -> None:
    console = Console()
    console.event(TakeoverRequested(run_id="r1", reason="2fa", message="Type the code"))
    assert "a person is needed" not in capsys.readouterr().out  # asked is not paused yet
    console.event(TakeoverEnded(run_id="r1", note="done"))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "a person is needed (2fa): Type the code" and lines[-1] == "handed back: done"


def test_a_pause_seen_is_told_once(capsys: pytest.CaptureFixture[str]) -> None:
    console = Console()
    console.event(TakeoverRequested(run_id="r1", reason="2fa", message="Type the code"))
    console.paused()
    console.event(TakeoverEnded(run_id="r1"))
    out = capsys.readouterr().out
    assert out.count("a person is needed") == 1 and out.rstrip().endswith("handed back")
