"""The review form: a decision, a comment and the reviewer's name, appended to index/reviews."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards.repository import Repository
from rlauto_core.redact import Redactor
from rlauto_core.store import REVIEW_DECISIONS, IndexedItem, ReviewError, add_review

REVIEWER = "reviewer_name"
FLASH = "review_flash"


def render(repository: Repository, redactor: Redactor, item: IndexedItem) -> None:
    st.subheader("Review")
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    with st.form("review_form", clear_on_submit=False):
        decision = st.radio("Decision", REVIEW_DECISIONS, horizontal=True, key="review_decision")
        reviewer = st.text_input("Reviewer", key=REVIEWER)
        comment = st.text_area("Comment", key="review_comment")
        submitted = st.form_submit_button("Submit review", type="primary")
    if submitted:
        try:
            # the item comes from the index this page read: the review is for an item that exists
            review = add_review(repository.storage, item.job_id, item.item_id, decision, reviewer, comment)
        except ReviewError as exc:
            st.error(redactor.markdown(str(exc)))
        else:
            repository.refresh()
            # rerun so the page header and the tables show the new decision at once
            st.session_state[FLASH] = f"Recorded: {review.decision} by {redactor.markdown(review.reviewer)}"
            st.rerun()
    history = repository.get_reviews(item.job_id, item.item_id)
    if history:
        st.caption("Decisions, newest first (the newest one counts)")
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "decision": r.decision,
                        "reviewer": redactor.text(r.reviewer),
                        "comment": redactor.text(r.comment),
                        "at": r.created_at,
                    }
                    for r in history
                ]
            ),
            hide_index=True,
            width="stretch",
        )
