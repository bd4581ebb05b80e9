"""`import rlauto`: the SDK's public face for scripts and notebooks.

`rlauto.open_env(PACKAGE)` opens a task package's replay environment (docs/replay.md): no model,
no network, no Prefect. The package ships from `flows/public/` (pyproject.toml maps it), so the
project's fixed top-level layout stays as it is.
"""

from rlauto_core.replay import EnvCall, EnvCoverage, EnvObservation, EnvReward, ReplayEnv, open_env

__all__ = ["EnvCall", "EnvCoverage", "EnvObservation", "EnvReward", "ReplayEnv", "open_env"]
