"""The orchestration tests' servers are the shared ones (tests/fixtures: the moto S3 server behind
an outage relay, the fake model server; tests/conftest.py: the Prefect server). The names below
stay importable from here for the tests that use them."""

from tests.fixtures.models import ANALYZER_KEY, JUDGE_KEY, model_env
from tests.fixtures.s3 import S3_ENV, S3Server

__all__ = ["ANALYZER_KEY", "JUDGE_KEY", "S3_ENV", "S3Server", "model_env"]
