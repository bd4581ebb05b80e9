"""Evidence: calls classified (state-changing or read), noise filtered, entities and main entity."""

from rlauto_core.evidence.build import build_evidence
from rlauto_core.evidence.main_entity import choose_main_entity
from rlauto_core.evidence.models import CallEvidence, EntityRef, Evidence, MainEntityChoice
from rlauto_core.evidence.views import evidence_chars, full_evidence, slim_evidence, slim_id

__all__ = [
    "CallEvidence",
    "EntityRef",
    "Evidence",
    "MainEntityChoice",
    "build_evidence",
    "choose_main_entity",
    "evidence_chars",
    "full_evidence",
    "slim_evidence",
    "slim_id",
]
