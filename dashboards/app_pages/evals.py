"""The Evals page (run by `st.navigation`): agents evaluated in package environments
(dashboards/views/evals_packages.py)."""

import streamlit as st

from dashboards.navigation import current
from dashboards.views.evals_packages import render_package_evals

st.title("Evals")
render_package_evals(current())
