"""Task packages: the model of the rewritten task.json, the builder, and (de)serialization."""

from rlauto_core.package.models import (
    ApiCall,
    DbDiffCriteria,
    DbDiffCriterion,
    GoldenStep,
    NetworkSummary,
    PackageTask,
    Rubric,
    SelfCheck,
    Subtask,
    TaskPackage,
)

__all__ = [
    "ApiCall",
    "DbDiffCriteria",
    "DbDiffCriterion",
    "GoldenStep",
    "NetworkSummary",
    "PackageTask",
    "Rubric",
    "SelfCheck",
    "Subtask",
    "TaskPackage",
]
