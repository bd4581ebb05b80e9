"""The Items page (run by `st.navigation`; what it shows is in dashboards/views/items.py)."""

from dashboards.navigation import current
from dashboards.views import items

app = current()
items.render(app.repository, app.redactor)
