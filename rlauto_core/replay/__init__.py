"""Replay environments: a task package served as a stateful app an agent acts in, with its
checkers as the reward (docs/replay.md). Built from the package and its recording only."""

from rlauto_core.replay.coverage import EnvCoverage, RouteCoverage
from rlauto_core.replay.env import Environment, EnvObservation, EnvReward, ReplayEnv, open_env
from rlauto_core.replay.episode import Episode, EpisodeCall, TurnModel, run_episode
from rlauto_core.replay.replayer import Replayer, golden_calls
from rlauto_core.replay.scripted import SCRIPTED_MODEL, ScriptedPackageModel
from rlauto_core.replay.session import EnvSession, HttpAnswer, SessionCall
from rlauto_core.replay.steps import EnvCall, http_answer_json, parse_call
from rlauto_core.replay.tools import HTTP_TOOL, EnvTool

__all__ = [
    "HTTP_TOOL",
    "SCRIPTED_MODEL",
    "EnvCall",
    "EnvCoverage",
    "EnvObservation",
    "EnvReward",
    "EnvSession",
    "EnvTool",
    "Environment",
    "Episode",
    "EpisodeCall",
    "HttpAnswer",
    "ReplayEnv",
    "Replayer",
    "RouteCoverage",
    "ScriptedPackageModel",
    "SessionCall",
    "TurnModel",
    "golden_calls",
    "http_answer_json",
    "open_env",
    "parse_call",
    "run_episode",
]
