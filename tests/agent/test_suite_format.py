"""Suite files, broken, hostile and huge: each refused with one line naming the file, the task and
the problem (and `rlauto agent eval` exits 2 with it before anything starts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlauto_core.agent.suite import SuiteError, load_suite, parse_suite
from tests.in_process_cli import invoke

GOOD = """
name: mine
tasks:
  - id: wifi
    instruction: Turn on Wi-Fi
    checks:
      - {shell: settings get global wifi_on, equals: "1"}
"""


def _problem(text: str | bytes) -> str:
    with pytest.raises(SuiteError) as caught:
        parse_suite(text if isinstance(text, bytes) else text.encode(), "suite.yaml")
    assert caught.value.file == "suite.yaml"
    return caught.value.problem


def test_a_good_suite_reads_and_its_digest_changes_with_its_content() -> None:
    suite = parse_suite(GOOD.encode(), "suite.yaml")
    assert [t.id for t in suite.tasks] == ["wifi"] and suite.tasks[0].budget == 30
    other = parse_suite(GOOD.replace('"1"', '"0"').encode(), "suite.yaml")
    assert suite.digest() != other.digest() and len(suite.digest()) == 12


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("name: [unclosed", "not valid YAML at line 1"),
        ("- a\n- b\n", "expected a mapping with `name` and `tasks`"),
        ("name: x\ntasks: []\n", "tasks: List should have at least 1 item"),
        (GOOD.replace("checks:", "chekcs:"), "task 1 ('wifi'): chekcs: Extra inputs are not permitted"),
        (GOOD.replace("{shell: settings get global wifi_on, equals: \"1\"}", "{shell: x, demo: y, equals: 1}"),
         "task 1 ('wifi'): checks.0: give exactly one of demo, shell, ui, file, unchanged, outcome (got demo, shell)"),
        (GOOD.replace("{shell: settings get global wifi_on, equals: \"1\"}", "{shell: x}"),
         "a shell check takes exactly one of equals, contains, lacks, count, matches"),
        (GOOD.replace("{shell: settings get global wifi_on, equals: \"1\"}", "{outcome: blocked}"),
         "the checks only read how the run ended: add one that reads the phone or the files"),
        (GOOD.replace("{shell: settings get global wifi_on, equals: \"1\"}", "{shell: x, matches: '(['}"),
         "matches: not a regular expression"),
        (GOOD.replace("id: wifi", "id: Wi Fi!"), "task 1 ('Wi Fi!'): id: 'Wi Fi!': 1-64 lowercase letters"),
        (GOOD + GOOD.split("tasks:\n")[1], "task ids used twice: ['wifi']"),
        (GOOD.replace("Turn on Wi-Fi", "x\n    budget: 0"), "budget: Input should be greater than or equal to 1"),
        (GOOD + "start:\n  demo:\n    shopping: {items: [Bread], bought: [Eggs]}\n",
         "start.demo.shopping: bought items that are not on the list: ['Eggs']"),
        (GOOD + "person:\n  sms: {note: hi}\n", "person.sms.[key]: Input should be 'login'"),
    ],
)  # fmt: skip
def test_a_broken_suite_is_refused_naming_the_task_and_the_problem(text: str, problem: str) -> None:
    assert problem in _problem(text)


def test_hostile_and_huge_suites_are_refused_before_they_cost_anything() -> None:
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    assert "aliases (*name) are not allowed in a suite" in _problem(laughs)
    assert "over the 1024 KiB limit" in _problem(b"#" * (1024 * 1024 + 1))
    assert _problem(b"name: \xff\xfe") == "not UTF-8 text (byte 6)"
    assert "could not determine a constructor" in _problem("name: !!python/object/apply:os.system ['true']\n")


def test_a_suite_path_that_is_not_a_readable_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="no such file"):
        load_suite(tmp_path / "missing.yaml")
    with pytest.raises(SuiteError, match="is a folder"):
        load_suite(tmp_path)


def test_rlauto_agent_eval_refuses_a_broken_suite_file_with_exit_2_and_one_line(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(GOOD.replace('equals: "1"', 'equals: "1", lacks: "0"'))
    done = invoke("agent", "eval", str(path), "--device", "demo-1")
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {path}: task 1 ('wifi'): checks.0: a shell check takes exactly one")
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert invoke("agent", "eval", "--device", "demo-1", "--runs", "0").stderr == "error: --runs: 1 to 20, not 0\n"
    assert invoke("agent", "eval").stderr.startswith("error: give --device SERIAL")
