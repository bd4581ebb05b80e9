"""The Streamlit review app and its DuckDB repository."""
