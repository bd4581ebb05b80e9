"""Launching an agent run: the words the `run-agent` flow and its launchers (the dashboard,
the CLI, the SDK) share: the deployment and slot names, what a launch gives back
(`LaunchedAgentRun`, `LaunchStatus`) and the phones one may choose (`AgentDevice`).
"""

from rlauto_core.agent.launch.launch import (
    AGENT_HOLDER_VARIABLE,
    AGENT_SLOT,
    EVAL_SUITE_DEPLOYMENT,
    RUN_AGENT_DEPLOYMENT,
    AgentDevice,
    LaunchedAgentRun,
    LaunchStatus,
    agent_run_tag,
    device_holder_variable,
    device_slot,
)

__all__ = [
    "AGENT_HOLDER_VARIABLE",
    "AGENT_SLOT",
    "EVAL_SUITE_DEPLOYMENT",
    "RUN_AGENT_DEPLOYMENT",
    "AgentDevice",
    "LaunchStatus",
    "LaunchedAgentRun",
    "agent_run_tag",
    "device_holder_variable",
    "device_slot",
]
