"""The Agent page (run by `st.navigation`; what it shows is in dashboards/views/agent.py)."""

from dashboards.navigation import current
from dashboards.views import agent

app = current()
agent.render(app.repository, app.agent_launcher, app.redactor)
