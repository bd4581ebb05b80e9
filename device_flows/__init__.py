"""Prefect flows that run on the phone machine, and the device drivers."""

from rlauto_core.config import follow_log_level

# the phone worker's flow-run process imports only the flow's file, and that file this package:
# our loggers (rlauto.agent ...) follow LOG_LEVEL there too
follow_log_level()
