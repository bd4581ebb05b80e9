"""Evidence: calls classified (state-changing or read), noise filtered, entities and main entity."""

from rlauto_core.evidence.build import build_evidence, main_entity
from rlauto_core.evidence.models import CallEvidence, EntityRef, Evidence
from rlauto_core.evidence.views import evidence_chars, full_evidence, slim_evidence, slim_id

__all__ = [
    "CallEvidence",
    "EntityRef",
    "Evidence",
    "build_evidence",
    "evidence_chars",
    "full_evidence",
    "main_entity",
    "slim_evidence",
    "slim_id",
]
