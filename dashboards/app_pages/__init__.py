"""The page scripts `st.navigation` runs (dashboards/navigation.py); each one line of work."""
