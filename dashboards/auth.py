"""Who may see the dashboard: anyone on loopback; elsewhere only with the configured password."""

from __future__ import annotations

import hmac
import ipaddress
import os

import streamlit as st

from dashboards.login_throttle import FREE_ATTEMPTS, THROTTLE, say_wait

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
    client = _client()
    waiting = THROTTLE.wait_left(client)
    if submitted and waiting <= 0:
        if hmac.compare_digest(given.encode("utf-8"), password.encode("utf-8")):
            THROTTLE.succeeded(client)
            st.session_state[AUTHENTICATED] = True
            st.session_state.pop("login_password", None)
            st.rerun()
        waiting = THROTTLE.failed(client)
        st.error("Wrong password.")
    if waiting > 0:
        # an attempt during the wait is not even checked: guessing cannot go faster than this
        st.error(f"Too many wrong passwords ({FREE_ATTEMPTS} or more): wait {say_wait(waiting)} before trying again.")
    return False


def _client() -> str:
    """Who is guessing: the browser's address (one per client, whatever its sessions and
    reloads). Clients whose address Streamlit does not know share one record: stricter, never
    a way around the limit."""
    try:
        address = st.context.ip_address
    except Exception:  # outside a served session (scripts, some test harnesses)
        address = None
    # only a real address string counts (a test harness hands a stand-in object)
    return f"ip:{address}" if isinstance(address, str) and address else "unknown-address"
