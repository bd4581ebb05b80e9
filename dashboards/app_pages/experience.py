"""The Experience page (run by `st.navigation`; what it shows is in dashboards/views/experience.py)."""

from dashboards.navigation import current
from dashboards.views import experience

app = current()
experience.render(app.repository.storage, app.redactor, app.memory)
