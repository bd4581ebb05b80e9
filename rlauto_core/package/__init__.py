"""Task packages: the model of the rewritten task.json, judge results and the pass policy, the
builder, the output ZIP, and (de)serialization."""

from rlauto_core.package.builder import build_package
from rlauto_core.package.dataflow import input_locations, invented_values
from rlauto_core.package.draft import DraftGroup, DraftRubric, PackageDraft
from rlauto_core.package.export import export_package, package_file_name
from rlauto_core.package.io import load_package, package_bytes, package_from_json, package_to_json
from rlauto_core.package.judgement import Dimension, DimensionScore, JudgeResult, PassPolicy, Verdict
from rlauto_core.package.models import (
    ApiCall,
    DbDiffCriteria,
    DbDiffCriterion,
    GoldenStep,
    JudgeIteration,
    NetworkSummary,
    PackageTask,
    PackageValidation,
    Rubric,
    SelfCheck,
    Subtask,
    TaskPackage,
)
from rlauto_core.package.volatile import volatile_kind

__all__ = [
    "ApiCall",
    "DbDiffCriteria",
    "DbDiffCriterion",
    "Dimension",
    "DimensionScore",
    "DraftGroup",
    "DraftRubric",
    "GoldenStep",
    "JudgeIteration",
    "JudgeResult",
    "NetworkSummary",
    "PackageDraft",
    "PackageTask",
    "PackageValidation",
    "PassPolicy",
    "Rubric",
    "SelfCheck",
    "Subtask",
    "TaskPackage",
    "Verdict",
    "build_package",
    "export_package",
    "input_locations",
    "invented_values",
    "load_package",
    "package_bytes",
    "package_file_name",
    "package_from_json",
    "package_to_json",
    "volatile_kind",
]
