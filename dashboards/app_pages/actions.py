"""The Actions page (run by `st.navigation`; what it shows is in dashboards/views/actions.py)."""

from dashboards.navigation import current
from dashboards.views import actions

app = current()
actions.render(app.repository.storage, app.redactor)
