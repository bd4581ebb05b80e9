"""The run context: what every entry point (the CLI, a flow, the dashboard, the SDK) resolves
once and passes down, instead of each layer reading the environment again: the settings, the
storage URL and the deployment names."""

from __future__ import annotations

from dataclasses import dataclass

from rlauto_core.config.settings import Settings

PACKAGE_BATCH_DEPLOYMENT = "package-batch/package-batch"
PACKAGE_RECORDING_DEPLOYMENT = "package-recording/package-recording"


@dataclass(frozen=True)
class RunContext:
    settings: Settings
    storage_url: str
    batch_deployment: str = PACKAGE_BATCH_DEPLOYMENT
    item_deployment: str = PACKAGE_RECORDING_DEPLOYMENT

    @classmethod
    def resolve(cls, settings: Settings | None = None, storage_url: str | None = None) -> RunContext:
        """The settings given (else read from the environment now) and the storage URL given
        (else the settings'): the one place `storage_url or RLAUTO_STORAGE_URL` is decided."""
        settings = settings if settings is not None else Settings()
        return cls(settings=settings, storage_url=storage_url or settings.rlauto_storage_url)
