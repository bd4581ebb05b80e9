"""The Recording model: what one ZIP (or bare HAR) holds once imported.

Call ids follow formats.md section 5: the recorded `id` for echo calls, the request's `id`
for JSON-RPC calls, the 0-based entry position for HAR entries.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel, ConfigDict, Field


class Mode(StrEnum):
    API = "api"
    MCP = "mcp"


# the files a recording ZIP holds by name at its (folder-relative) root (docs/formats.md); found
# loose in a folder they are an unpacked recording's parts, not recordings of their own
RECORDING_PARTS = frozenset({"task.json", "network.json", "mcp_calls.json", "session.json", "dbdiff.json"})


# One header line, (name, value). A plain tuple, not a model or a NamedTuple: a recording
# holds 100k+ of them and the importer builds them with one C call per header object
# (bench/bench_import.py). Stored as [name, value] either way.
Header = tuple[str, str]


BodyEncoding = Literal["text", "base64"]


@lru_cache(maxsize=65536)  # every rule and checker reads url parts; keyed by the url, so copies stay right
def _split_url(url: str) -> tuple[str, str, str]:
    try:
        parts = urlsplit(url)
    except ValueError:
        return "", url, ""
    return parts.netloc, parts.path or "/", parts.query


class HttpCall(BaseModel):
    """One captured HTTP request and its response."""

    kind: Literal["http"] = "http"
    id: str
    started_at: datetime | None = None
    duration_ms: float | None = None
    method: str
    url: str
    resource_type: str | None = None
    request_headers: list[Header] = Field(default_factory=list)
    request_body: str | None = None
    request_body_encoding: BodyEncoding = "text"
    status: int | None = None
    response_headers: list[Header] = Field(default_factory=list)
    response_body: str | None = None
    response_body_encoding: BodyEncoding = "text"
    page_url: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def _url_parts(self) -> tuple[str, str, str]:
        return _split_url(self.url)

    @property
    def path(self) -> str:
        return self._url_parts[1]

    @property
    def host(self) -> str:
        return self._url_parts[0]

    @property
    def query_string(self) -> str:
        return self._url_parts[2]

    @property
    def query(self) -> list[tuple[str, str]]:
        return parse_qsl(self._url_parts[2], keep_blank_values=True)

    @property
    def name(self) -> str:
        """`METHOD /path`, the API name used in packages."""
        return f"{self.method.upper()} {self.path}"

    def header(self, name: str, *, response: bool = False) -> str | None:
        wanted = name.lower()
        for header_name, value in self.response_headers if response else self.request_headers:
            if header_name.lower() == wanted:
                return value
        return None


class ToolCall(BaseModel):
    """One MCP `tools/call`: arguments in, result out."""

    kind: Literal["mcp"] = "mcp"
    id: str
    server: str | None = None
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    is_error: bool = False
    answered: bool = True
    started_at: datetime | None = None
    duration_ms: float | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def name(self) -> str:
        """The tool name exactly as recorded (never shortened or renamed)."""
        return self.tool


Call = HttpCall | ToolCall


class RecordingMetadata(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    recording_id: str | None = Field(default=None, alias="recordingId")
    recorded_at: str | None = Field(default=None, alias="recordedAt")
    extension_version: str | None = Field(default=None, alias="extensionVersion")
    site: str | None = None


class AnnotatorTask(BaseModel):
    """The annotator's raw task from task.json; unknown keys are kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    instruction: str = ""
    network_requests: list[str] = Field(default_factory=list, alias="networkRequests")
    subtasks: list[Any] = Field(default_factory=list)
    rubrics: list[Any] = Field(default_factory=list)


class ToolSpec(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    name: str
    description: str | None = None
    input_schema: dict[str, Any] | None = Field(default=None, alias="inputSchema")


class ServerSpec(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    version: str | None = None
    tools: list[ToolSpec] = Field(default_factory=list)


class Session(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    session_id: str | None = Field(default=None, alias="sessionId")
    started_at: str | None = Field(default=None, alias="startedAt")
    ended_at: str | None = Field(default=None, alias="endedAt")
    user: dict[str, Any] | None = None
    servers: list[ServerSpec] = Field(default_factory=list)


class RowUpdate(BaseModel):
    before: dict[str, Any] = Field(default_factory=dict)
    after: dict[str, Any] = Field(default_factory=dict)


class TableDiff(BaseModel):
    inserted: list[dict[str, Any]] = Field(default_factory=list)
    updated: list[RowUpdate] = Field(default_factory=list)
    deleted: list[dict[str, Any]] = Field(default_factory=list)


class DbDiff(BaseModel):
    tables: dict[str, TableDiff] = Field(default_factory=dict)

    def row_count(self) -> int:
        return sum(len(t.inserted) + len(t.updated) + len(t.deleted) for t in self.tables.values())


FileRole = Literal["task", "network", "har", "mcp_calls", "session", "dbdiff", "other"]


class RecordingFile(BaseModel):
    """One entry of the recording archive, by its name inside the archive."""

    name: str
    size: int
    role: FileRole


class ImportNote(BaseModel):
    """Something an importer read past instead of refusing the file (a capture that began
    mid-session, a result the client's log cut): the local rules turn each into a flag."""

    code: str
    file: str
    message: str
    ids: list[str] = Field(default_factory=list)


class Recording(BaseModel):
    source_name: str
    source_sha256: str
    mode: Mode
    detected_mode: Mode
    metadata: RecordingMetadata = Field(default_factory=RecordingMetadata)
    task: AnnotatorTask = Field(default_factory=AnnotatorTask)
    task_json: dict[str, Any] = Field(default_factory=dict)
    http_calls: list[HttpCall] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    session: Session | None = None
    dbdiff: DbDiff | None = None
    files: list[RecordingFile] = Field(default_factory=list)
    root_prefix: str = ""
    import_notes: list[ImportNote] = Field(default_factory=list)

    @property
    def calls(self) -> list[Call]:
        """The calls of the recording's mode, in recorded order."""
        if self.mode is Mode.MCP:
            return list(self.tool_calls)
        return list(self.http_calls)

    def call_by_id(self, call_id: str) -> Call | None:
        for call in self.calls:
            if call.id == call_id:
                return call
        return None
