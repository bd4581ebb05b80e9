"""The dashboard's pages; each `render(repository, redactor)` draws one page."""
