"""The TaskPackage: the rewritten task.json of formats.md section 2, as pydantic models.

Echo fields the plugin reads keep their camelCase (`networkRequests`, `groupMode`, `apiCalls`,
`generatedAt`...); the RL fields are snake_case as the format lists them. Unknown keys of the
recorded task.json survive a load/dump round trip (`extra="allow"`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rlauto_core.evidence.models import EntityRef
from rlauto_core.package.judgement import JudgeResult
from rlauto_core.rules.flags import Flag
from rlauto_core.rules.profiles import DEFAULT_PROFILE

_ALIASED = ConfigDict(extra="allow", populate_by_name=True)


class GeneratorInfo(BaseModel):
    name: str = "rlauto"
    version: str


class PackageMetadata(BaseModel):
    """The recorded metadata (any keys) plus who generated the package, when, from which bytes."""

    model_config = _ALIASED

    generator: GeneratorInfo | None = None
    generated_at: str | None = Field(default=None, alias="generatedAt")
    source_sha256: str | None = Field(default=None, alias="sourceSha256")


class ApiCall(BaseModel):
    """A full call object: API `name` is `METHOD /path` (type http), MCP `name` the tool as recorded."""

    model_config = ConfigDict(extra="allow")

    id: str
    name: str
    type: Literal["http", "mcp"]
    input: dict[str, Any] = Field(default_factory=dict)
    output: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class Subtask(BaseModel):
    model_config = _ALIASED

    id: str
    title: str
    description: str = ""
    group_mode: Literal["api", "mcp"] = Field(alias="groupMode")
    api_calls: list[ApiCall] = Field(default_factory=list, alias="apiCalls")


class Rubric(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    title: str
    description: str = ""
    max_score: int = Field(default=1, ge=0)
    checker_key: str | None = None


class PackageTask(BaseModel):
    model_config = _ALIASED

    instruction: str = ""
    # recorded (the annotator's), offline (written by the offline analyzer from the calls), model
    instruction_source: Literal["recorded", "offline", "model"] | None = Field(default=None, alias="instructionSource")
    # answer tasks: what a correct attempt reports (task.answer of an attempt, docs/checkers.md)
    answer: Any = None
    network_requests: list[str] = Field(default_factory=list, alias="networkRequests")
    subtasks: list[Subtask] = Field(default_factory=list)
    rubrics: list[Rubric] = Field(default_factory=list)


class DbDiffCriterion(BaseModel):
    """One row the database must show: table, op, row predicates, and the checker that tests it."""

    model_config = ConfigDict(extra="allow")

    table: str
    op: Literal["insert", "update", "delete"]
    row: dict[str, Any] = Field(default_factory=dict)
    before: dict[str, Any] | None = None
    checker_key: str | None = None
    description: str = ""


class DbDiffCriteria(BaseModel):
    model_config = ConfigDict(extra="allow")

    criteria: list[DbDiffCriterion] = Field(default_factory=list)
    # The recorded diff itself, so a package alone can replay its golden trajectory.
    golden_diff: dict[str, Any] | None = None


class AttemptPolicy(BaseModel):
    """How an attempt's rubric scores become pass/fail: required rubrics pass and the score is high enough."""

    required_rubrics: list[str] = Field(default_factory=list)
    min_fraction: float = Field(default=1.0, ge=0, le=1)
    rule: str = "every rubric passes (full marks)"


class JudgePolicy(BaseModel):
    name: str = "default"
    strict_full_marks: bool = False
    ignore_task_complexity_for_full_marks: bool = False
    rule: str = "total >= 10 and no zero"


class PackagePassPolicy(BaseModel):
    model_config = ConfigDict(extra="allow")

    attempt: AttemptPolicy = Field(default_factory=AttemptPolicy)
    judge: JudgePolicy = Field(default_factory=JudgePolicy)


class GoldenStep(BaseModel):
    """One reference call, pointing at a recorded call id; `target` is the entity it acts on."""

    model_config = ConfigDict(extra="allow")

    step: int
    call_id: str
    name: str
    type: Literal["http", "mcp"]
    state_changing: bool = False
    target: EntityRef | None = None
    depends_on: list[str] = Field(default_factory=list)


class FilteredCall(BaseModel):
    call_id: str
    name: str = ""
    reason: str
    state_changing: bool = False  # a write left out: the self-check accounts for every one


WriteRule = Literal["noise", "failed", "ui_state", "side_call", "duplicate_retry", "stray"]


class CoveredWrite(BaseModel):
    """A successful write of the recording that rubrics require (their checkers match it)."""

    call_id: str
    name: str
    rubrics: list[str]


class ExcludedWrite(BaseModel):
    """A write of the recording no rubric requires, and the rule behind that; `rule` None: no rule,
    the package needs revision."""

    call_id: str
    name: str
    reason: str
    rule: WriteRule | None = None


RecordingMutantKind = Literal["drop", "retarget", "other_operation", "protocol_error", "wrong_content"]


class RecordingMutant(BaseModel):
    """A wrong attempt made from the recording's own writes (not from the golden): it must lose points."""

    id: str
    kind: RecordingMutantKind
    description: str
    call_ids: list[str] = Field(default_factory=list)
    score: float
    caught: bool


class NetworkSummary(BaseModel):
    model_config = ConfigDict(extra="allow")

    mode: Literal["api", "mcp"]
    calls: int = 0
    significant: int = 0
    state_changing: int = 0
    failed: int = 0
    hosts: list[str] = Field(default_factory=list)
    servers: list[str] = Field(default_factory=list)
    started_at: str | None = None
    ended_at: str | None = None
    span_seconds: float | None = None
    main_entity: EntityRef | None = None
    noise_removed: dict[str, int] = Field(default_factory=dict)
    filtered: list[FilteredCall] = Field(default_factory=list)
    dbdiff_rows: int = 0


ValueRoleName = Literal["created", "stable", "volatile", "content"]


class ValueRole(BaseModel):
    """How a checked value is compared, and why (docs/checkers.md, "Value roles")."""

    role: ValueRoleName
    reason: str


class MutantOutcome(BaseModel):
    id: str
    kind: Literal["drop", "retarget", "swap", "stray", "answer"]
    description: str
    call_ids: list[str] = Field(default_factory=list)
    score: float
    caught: bool


VariantKind = Literal[
    "read_dropped", "stable_without_read", "reads_reordered", "ids_renamed", "volatile_changed", "behaviour_changed"
]


class BrokenRubric(BaseModel):
    id: str
    title: str = ""
    reason: str


class VariantOutcome(BaseModel):
    """A valid variant of the golden (another path a good attempt may take) and how it scored."""

    id: str
    kind: VariantKind
    description: str
    score: float
    full_marks: bool
    broken: list[BrokenRubric] = Field(default_factory=list)  # rubrics the golden passes and it fails


class SelfCheck(BaseModel):
    golden_full_marks: bool
    golden_score: float
    max_score: float
    empty_attempt_score: float
    empty_attempt_passed: bool
    mutants_total: int
    mutants_caught: int
    caught_fraction: float
    # the golden redone later (ids renamed, volatile values changed): None when nothing would change
    redo_full_marks: bool | None = None
    mutants: list[MutantOutcome] = Field(default_factory=list)
    variants_total: int = 0
    variants_passed: int = 0
    variants: list[VariantOutcome] = Field(default_factory=list)
    # evidence the checker generator did not write: every recorded write accounted for, mutants of
    # the recording's own writes, variants changing every value the session made (behaviour)
    writes_covered: list[CoveredWrite] = Field(default_factory=list)
    writes_excluded: list[ExcludedWrite] = Field(default_factory=list)
    recording_mutants: list[RecordingMutant] = Field(default_factory=list)
    behaviour_variants: list[VariantOutcome] = Field(default_factory=list)
    # clauses of the instruction (quoted strings, named entities) no rubric checks
    ungrounded: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)

    @property
    def failing_variant(self) -> VariantOutcome | None:
        """The first valid variant that loses points (a good attempt by that path would)."""
        return next((v for v in [*self.variants, *self.behaviour_variants] if not v.full_marks), None)

    @property
    def unruled_exclusions(self) -> list[ExcludedWrite]:
        return [w for w in self.writes_excluded if w.rule is None]

    @property
    def missed_recording_mutants(self) -> list[RecordingMutant]:
        return [m for m in self.recording_mutants if not m.caught]


class JudgeIteration(BaseModel):
    iteration: int
    result: JudgeResult


class PackageValidation(BaseModel):
    model_config = ConfigDict(extra="allow")

    flags: list[Flag] = Field(default_factory=list)
    judge: list[JudgeIteration] = Field(default_factory=list)
    iterations_used: int = 0
    verdict: Literal["PASS", "NEEDS_REVISION"] | None = None
    self_check: SelfCheck | None = None


class TaskPackage(BaseModel):
    model_config = _ALIASED

    metadata: PackageMetadata = Field(default_factory=PackageMetadata)
    task: PackageTask = Field(default_factory=PackageTask)
    rule_profile: str = DEFAULT_PROFILE
    rubric_checkers: dict[str, Any] = Field(default_factory=dict)
    # checker key -> field ("request.version", "row.cart_id") -> its role and why
    value_roles: dict[str, dict[str, ValueRole]] = Field(default_factory=dict)
    dbdiff_criteria: DbDiffCriteria = Field(default_factory=DbDiffCriteria)
    pass_policy: PackagePassPolicy = Field(default_factory=PackagePassPolicy)
    golden_trajectory: list[GoldenStep] = Field(default_factory=list)
    network: NetworkSummary = Field(default_factory=lambda: NetworkSummary(mode="api"))
    validation: PackageValidation = Field(default_factory=PackageValidation)

    @property
    def max_score(self) -> int:
        return sum(r.max_score for r in self.task.rubrics)

    def api_call(self, call_id: str) -> ApiCall | None:
        return self.api_calls_by_id().get(call_id)

    def api_calls_by_id(self) -> dict[str, ApiCall]:
        """Every full call object of the subtasks, by call id (the first one wins)."""
        found: dict[str, ApiCall] = {}
        for subtask in self.task.subtasks:
            for call in subtask.api_calls:
                found.setdefault(call.id, call)
        return found
