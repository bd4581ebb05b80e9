"""Step-based phone tasks: the step kinds, the `Phone` they need, and the runner."""

from rlauto_core.steps.models import STEP_KINDS, GestureStep, Selector, Step, StepError, parse_steps
from rlauto_core.steps.phone import Element, Phone, PhoneError, ShellResult
from rlauto_core.steps.runner import RunReport, StepResult, StepRunner, fit_to_screen, run_steps

__all__ = [
    "STEP_KINDS",
    "Element",
    "GestureStep",
    "Phone",
    "PhoneError",
    "RunReport",
    "Selector",
    "ShellResult",
    "Step",
    "StepError",
    "StepResult",
    "StepRunner",
    "fit_to_screen",
    "parse_steps",
    "run_steps",
]
