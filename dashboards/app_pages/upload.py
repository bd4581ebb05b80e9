"""The Upload page (run by `st.navigation`; what it shows is in dashboards/views/upload.py)."""

from dashboards.navigation import current
from dashboards.views import upload

app = current()
upload.render(app.launcher, app.settings, app.redactor)
