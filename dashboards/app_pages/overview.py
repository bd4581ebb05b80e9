"""The Overview page (run by `st.navigation`; what it shows is in dashboards/views/overview.py)."""

from dashboards.navigation import current
from dashboards.views import overview

app = current()
overview.render(app.repository, app.redactor, app.launcher)
