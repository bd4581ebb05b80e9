"""The phone agent, pure: a model operates a phone through tools under the run policy.

Its rooms, each with its own face (what `device_flows`, the dashboard, the CLI and the SDK use):
- `policy`: the run policy (fuses, hints, re-routes) and the step log it replays;
- `events`: typed events, the run's event log, `RunView`, the storage layout, record folders;
- `tools`: the tools over the `Phone` protocol, screens, the UI tree, reports, takeover words;
- `run`: `AgentLoop`, a run's state and model, conversations, settings, the memory hooks;
- `designer`: designer mode (`submit_task`, drafts, confirmed step tasks);
- `launch`: the names the `run-agent` flow and its launchers share;
- `suite`: task suites, their checks read from the phone, one task run, an eval's records.
Rooms import each other only through these faces, and never in a circle (policy <- events <-
tools <- run <- designer; launch <- events; run <- suite). The memory is a stage of its own,
`rlauto_core.memory`, built on these faces.
"""

from rlauto_core.agent import designer, events, launch, policy, run, suite, tools

__all__ = ["designer", "events", "launch", "policy", "run", "suite", "tools"]
