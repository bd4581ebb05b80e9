"""The Evals page (run by `st.navigation`): agents evaluated in package environments
(dashboards/views/evals_packages.py) and the phone agent measured on task suites
(dashboards/views/evals_agent.py)."""

import streamlit as st

from dashboards.navigation import current
from dashboards.views.evals_agent import render_agent_suite_evals
from dashboards.views.evals_packages import render_package_evals

st.title("Evals")
render_package_evals(current())
render_agent_suite_evals(current())
