"""Who may see the dashboard: anyone on loopback; elsewhere only with the configured password."""

from __future__ import annotations

import hmac
import ipaddress
import os

import streamlit as st

PASSWORD_ENV = "RLAUTO_DASHBOARD_PASSWORD"
AUTHENTICATED = "authenticated"


def is_loopback(host: str | None) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost; an empty address means all interfaces (not loopback)."""
    if not host:
        return False
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def configured_password() -> str | None:
    value = os.environ.get(PASSWORD_ENV, "")
    return value if value.strip() else None


def gate() -> bool:
    """Draw the password form when one is needed; True when the page may be shown."""
    password = configured_password()
    address = st.get_option("server.address")
    # no address means Streamlit listens on every interface: that counts as exposed
    exposed = not is_loopback(None if address is None else str(address))
    if password is None:
        if exposed:
            where = address or "every interface"
            st.error(f"This dashboard listens on {where} and {PASSWORD_ENV} is not set: refusing to serve.")
            return False
        return True
    if st.session_state.get(AUTHENTICATED):
        return True
    st.title("RL-Auto review")
    with st.form("login"):
        given = st.text_input("Password", type="password", key="login_password")
        submitted = st.form_submit_button("Sign in")
    if submitted:
        if hmac.compare_digest(given.encode("utf-8"), password.encode("utf-8")):
            st.session_state[AUTHENTICATED] = True
            st.session_state.pop("login_password", None)
            st.rerun()
        st.error("Wrong password.")
    return False
