"""Domain errors: each names what the user must look at and what is wrong with it."""

from __future__ import annotations


class RlautoError(Exception):
    """Base of every error this project raises on purpose."""


class RecordingError(RlautoError):
    """A recording (ZIP, JSON, HAR...) cannot be read: `file` names the part, `problem` says why."""

    def __init__(self, file: str, problem: str) -> None:
        self.file = file
        self.problem = problem
        super().__init__(f"{file}: {problem}")


class PackageError(RlautoError):
    """A task package is malformed or cannot be built/exported."""

    def __init__(self, file: str, problem: str) -> None:
        self.file = file
        self.problem = problem
        super().__init__(f"{file}: {problem}")


class ConfigError(RlautoError):
    """Configuration or run options are invalid."""
