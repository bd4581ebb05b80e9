"""The agent measured: a task suite (docs/agent-suite.md), its checks, and the eval's records.

A suite (`AgentSuite`, read from YAML by `load_suite`; `DEMO_SUITE` is the shipped one for the
demo phone) holds tasks, each with its start state, step budget, tags and checks that read the
phone afterwards (`apply_checks` over a `PhoneProbe`). `run_task` does one task run (reset, the
agent under the run policy, the checks) and returns its `TaskRunRecord`; `EvalStore` keeps
records, the eval's `SuiteSummary` and its rows in `index/agent_evals/` (`AGENT_EVALS_SCHEMA`).
"""

from rlauto_core.agent.suite.checks import CheckResult, PhoneProbe, RunFacts, apply_checks
from rlauto_core.agent.suite.loading import DEMO_SUITE, SuiteError, load_suite, parse_suite
from rlauto_core.agent.suite.records import (
    AGENT_EVALS_DIR,
    AGENT_EVALS_SCHEMA,
    AgentEvalRow,
    EvalSetup,
    EvalStore,
    SuiteSummary,
    TaskRunRecord,
    eval_dir,
)
from rlauto_core.agent.suite.runner import LoopParts, PhoneShell, TaskSetupError, reset_phone, run_task
from rlauto_core.agent.suite.suite import (
    DEMO_RESTORE_COMMAND,
    DEMO_STATE_COMMAND,
    AgentSuite,
    Check,
    DemoFixture,
    PersonAction,
    SuiteTask,
)

__all__ = [
    "AGENT_EVALS_DIR",
    "AGENT_EVALS_SCHEMA",
    "DEMO_RESTORE_COMMAND",
    "DEMO_STATE_COMMAND",
    "DEMO_SUITE",
    "AgentEvalRow",
    "AgentSuite",
    "Check",
    "CheckResult",
    "DemoFixture",
    "EvalSetup",
    "EvalStore",
    "LoopParts",
    "PersonAction",
    "PhoneProbe",
    "PhoneShell",
    "RunFacts",
    "SuiteError",
    "SuiteSummary",
    "SuiteTask",
    "TaskRunRecord",
    "TaskSetupError",
    "apply_checks",
    "eval_dir",
    "load_suite",
    "parse_suite",
    "reset_phone",
    "run_task",
]
