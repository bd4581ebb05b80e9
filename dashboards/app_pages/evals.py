"""The Evals page (run by `st.navigation`): the agent measured on task suites
(dashboards/views/evals_agent.py)."""

import streamlit as st

from dashboards.navigation import current
from dashboards.views.evals_agent import render_agent_suite_evals

st.header("Evals")
render_agent_suite_evals(current())
