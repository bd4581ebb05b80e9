"""The review dashboard as `rlauto dashboard` serves it: the app, handed its repository, the
deployment settings (read once), the launcher that starts batches through Prefect, the agent
launcher that starts, stops and hands back agent runs (`run-agent` on pool `phones`) and the one
that starts the agent memory's runs (designer, confirmed tasks, the audit)."""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__" and not __package__:
    # `streamlit run flows/cli/dashboard_app.py` from a checkout: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from flows.log_level import apply_log_level

apply_log_level()  # LOG_LEVEL, before Prefect is imported below

from dashboards.review import main, settings_or_error, shared_repository  # noqa: E402
from flows.agent_launch import PrefectAgentLauncher  # noqa: E402
from flows.launch import PrefectLauncher  # noqa: E402
from flows.memory_launch import PrefectMemoryLauncher  # noqa: E402

if __name__ == "__main__":
    settings = settings_or_error()
    repository = shared_repository(settings.rlauto_storage_url)
    launcher = PrefectLauncher(settings, repository.root_uri)
    main(
        repository,
        launcher,
        settings,
        agent_launcher=PrefectAgentLauncher(repository.root_uri, origin="dashboard"),
        memory=PrefectMemoryLauncher(repository.root_uri),
    )
