"""The device deployments in prefect.yaml point at real flows and run only on pool `phones`."""

from __future__ import annotations

import importlib

import yaml
from prefect import Flow

from tests.conftest import REPO_ROOT

DEVICE = {"record-gesture", "replay-gesture", "run-steps", "run-agent", "design-task", "eval-agent-suite"}


def test_device_deployments_target_the_phones_pool_and_existing_flows() -> None:
    deployments = yaml.safe_load((REPO_ROOT / "prefect.yaml").read_text())["deployments"]
    device = {d["name"]: d for d in deployments if d["name"] in DEVICE}
    assert device.keys() == DEVICE
    for name, deployment in device.items():
        assert deployment["work_pool"]["name"] == "phones"
        path, attribute = deployment["entrypoint"].split(":")
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        flow = getattr(module, attribute)
        assert isinstance(flow, Flow) and flow.name == name
    # no other deployment may land on the phone host
    assert all(d["work_pool"]["name"] != "phones" for d in deployments if d["name"] not in DEVICE)
    assert device["record-gesture"]["parameters"]["seconds"] == 10
