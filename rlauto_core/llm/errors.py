"""Model errors: transient ones are worth retrying, permanent ones fail the item at once.

Every message names the role, the endpoint host and what happened; never a key.
"""

from __future__ import annotations

from rlauto_core.errors import RlautoError
from rlauto_core.llm.types import TokenUsage


class ModelError(RlautoError):
    transient: bool = False
    # tokens already spent when the error happened (set by request_json), for the item's ledger
    usage: TokenUsage | None = None

    def __init__(self, role: str, host: str, problem: str, *, status: int | None = None) -> None:
        self.role = role
        self.host = host
        self.problem = problem
        self.status = status
        super().__init__(f"{role} model at {host}: {problem}")


class TransientModelError(ModelError):
    """429, 5xx, timeouts, dropped connections: retried with backoff, then reported."""

    transient = True

    def __init__(
        self,
        role: str,
        host: str,
        problem: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.retry_after = retry_after
        super().__init__(role, host, problem, status=status)


class PermanentModelError(ModelError):
    """400/401/403/404, context too long, an answer still invalid after the re-ask: never retried."""


class ContextTooLongError(PermanentModelError):
    pass


class InvalidAnswerError(PermanentModelError):
    """The model answered, but not with what was asked, even after one re-ask."""


class ModelNotConfiguredError(PermanentModelError):
    pass
