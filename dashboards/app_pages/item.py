"""One item's page (`?job=...&item=...`) (run by `st.navigation`; what it shows is in dashboards/views/detail.py)."""

from dashboards.navigation import current
from dashboards.views import detail

app = current()
detail.render(app.repository, app.redactor, app.launcher)
