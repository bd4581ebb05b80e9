"""The Polish page (run by `st.navigation`; what it shows is in dashboards/views/polish.py)."""

from dashboards.navigation import current
from dashboards.views import polish

app = current()
polish.render(app.settings, app.redactor)
