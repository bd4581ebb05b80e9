"""The Designer page (run by `st.navigation`; what it shows is in dashboards/views/designer.py)."""

from dashboards.navigation import current
from dashboards.views import designer

app = current()
designer.render(app.repository.storage, app.redactor, app.memory)
