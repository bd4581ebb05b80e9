"""Pure logic of RL-Auto: models, importers, evidence, rules, packages, checkers, gestures.

Never imports prefect, streamlit, uiautomator2, adbutils or s3fs: it takes bytes, models and
small protocols and returns models.
"""

__version__ = "0.1.0"
