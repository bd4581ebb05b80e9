"""Tools and the phone: what the model can do, executed over the `Phone` protocol.

The tools' argument models and OpenAI schemas (`tool_specs`), the `Toolbox` executing a call
(`ToolOutcome`; a failing call is a tool error, never a crash), the phones a host sees
(`DeviceDirectory`), local tools the platform runs itself (`LocalTool`), screenshots scaled and
stored (`ScreenStore`), the UI tree (`compress_hierarchy`), task reports and their deliverables
(`check_completion`) and the takeover hook's words (`TakeoverRequest` -> `TakeoverAnswer`).
"""

from rlauto_core.agent.tools.images import ImageError, scale_screenshot
from rlauto_core.agent.tools.local import LocalCall, LocalTool
from rlauto_core.agent.tools.report import CompletionCheck, TaskReport, check_completion
from rlauto_core.agent.tools.screens import ScreenRef, ScreenStore
from rlauto_core.agent.tools.takeover import TakeoverAnswer, TakeoverArgs, TakeoverHook, TakeoverReason, TakeoverRequest
from rlauto_core.agent.tools.tool_args import TOOL_NAMES, WAIT_CAP_S, tool_specs
from rlauto_core.agent.tools.toolbox import DeviceDirectory, DeviceInfo, Toolbox, ToolOutcome
from rlauto_core.agent.tools.ui_tree import UiTreeError, compress_hierarchy

__all__ = [
    "TOOL_NAMES",
    "WAIT_CAP_S",
    "CompletionCheck",
    "DeviceDirectory",
    "DeviceInfo",
    "ImageError",
    "LocalCall",
    "LocalTool",
    "ScreenRef",
    "ScreenStore",
    "TakeoverAnswer",
    "TakeoverArgs",
    "TakeoverHook",
    "TakeoverReason",
    "TakeoverRequest",
    "TaskReport",
    "ToolOutcome",
    "Toolbox",
    "UiTreeError",
    "check_completion",
    "compress_hierarchy",
    "scale_screenshot",
    "tool_specs",
]
