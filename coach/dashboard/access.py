"""Who may use the dashboard, and what it may open for them.

The server binds to 127.0.0.1 (.streamlit/config.toml): only this computer reaches it. Sharing on the local
network — the phone-as-camera case — is an explicit switch (`scripts/run --share`, or any non-loopback
`server.address`), and then every session must first give the passcode (`COACH_PASSCODE`) or the token
(`COACH_TOKEN`, else one generated at start and printed with the URL, as Jupyter does). Streamlit's own
static files stay public; nothing of the store, the videos or the camera is shown before the login.

The Live page opens cameras, the sample clips and uploads; any other file or a URL (a server-side fetch an
outsider could aim at the server's own network) only where the operator lists it in `COACH_LIVE_SOURCES`.
"""

from __future__ import annotations

import hmac
import os
import secrets
import sys
import threading
from pathlib import Path

from ..capture import parse_source
from ..errors import CoachError
from .settings import Settings

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
_token_lock = threading.Lock()
_token: str | None = None


def sharing(address: str | None) -> bool:
    """Is the server reachable from other machines? An empty address means every interface."""
    return not address or address.strip() not in LOOPBACK


def secret() -> str:
    """The passcode, else the token: from the environment, else generated once per server and printed."""
    global _token
    configured = os.environ.get("COACH_PASSCODE") or os.environ.get("COACH_TOKEN")
    if configured:
        return configured
    with _token_lock:
        if _token is None:
            _token = secrets.token_urlsafe(24)
            print(f"射經 Coach: shared on the network — open the dashboard with ?token={_token}", file=sys.stderr)
        return _token


def admits(given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(given.strip().encode(), secret().encode())


def gate() -> None:
    """Before any page: on a shared server, nothing but the login until the passcode or token is given."""
    import streamlit as st

    from .ui import tr

    if not sharing(st.get_option("server.address")) or st.session_state.get("coach_admitted"):
        return
    if admits(st.query_params.get("token")):
        st.session_state["coach_admitted"] = True
        return
    st.title(tr("login_title"))
    st.caption(tr("login_intro"))
    with st.form("login"):
        given = st.text_input(tr("login_passcode"), type="password", key="login_passcode")
        if st.form_submit_button(tr("login_enter")):
            if admits(given):
                st.session_state["coach_admitted"] = True
                st.rerun()
            st.error(tr("login_wrong"))
    st.stop()


def allowed_extra() -> tuple[str, ...]:
    raw = os.environ.get("COACH_LIVE_SOURCES", "")
    return tuple(s.strip() for s in raw.split(",") if s.strip())


def live_source(spec: str, settings: Settings) -> str | int:
    """The Live page's source if it is allowed: a camera index, a file in the samples or uploads folder, or
    what the operator lists in COACH_LIVE_SOURCES (URL prefixes or folders; `any` for everything)."""
    src = parse_source(spec.strip())
    if isinstance(src, int):
        return src
    extra = allowed_extra()
    if "any" in extra:
        return src
    text = str(src)
    if "://" in text:
        if any(text.startswith(prefix) for prefix in extra if "://" in prefix):
            return src
        raise CoachError(text, "a URL source is not allowed here (the operator can list it in COACH_LIVE_SOURCES)")
    p = Path(text).resolve()
    folders = [settings.samples, settings.uploads, *(Path(e).resolve() for e in extra if "://" not in e)]
    if any(p.is_relative_to(f) for f in folders):
        return str(p)
    raise CoachError(text, "is not allowed here: only cameras, sample_videos/ and uploads (see COACH_LIVE_SOURCES)")
