"""What the dashboard's browser camera (streamlit-webrtc → aiortc) needs to connect with no STUN/TURN server.

aioice, which gathers aiortc's ICE candidates, leaves 127.0.0.1 out of its host addresses. On a machine whose
only usable interface is loopback (a test sandbox, a laptop offline) aiortc's SDP answer then carries no
candidate at all, and the browser, having nothing to check, never gets past `connecting`. Call
`enable_loopback_candidates()` once, before `webrtc_streamer(...)` creates its peer connection, with
`rtc_configuration={"iceServers": []}` (no STUN lookups that would wait for the internet). See
docs/webrtc-findings.md.
"""

from __future__ import annotations

import os

LOOPBACK = "127.0.0.1"
_patched: dict[str, object] = {}


def enable_loopback_candidates(only: bool | None = None) -> None:
    """Offer 127.0.0.1 as a host candidate too (idempotent). `only=True` (or $COACH_WEBRTC_LOOPBACK_ONLY=1)
    offers nothing else, so a test's media stays on loopback."""
    import aioice.ice

    if only is None:
        only = os.environ.get("COACH_WEBRTC_LOOPBACK_ONLY") == "1"
    original = _patched.setdefault("get_host_addresses", aioice.ice.get_host_addresses)

    def get_host_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
        found = [] if only else list(original(use_ipv4, use_ipv6))
        if use_ipv4 and LOOPBACK not in found:
            found.append(LOOPBACK)
        return found

    aioice.ice.get_host_addresses = get_host_addresses


def disable_loopback_candidates() -> None:
    import aioice.ice

    original = _patched.pop("get_host_addresses", None)
    if original is not None:
        aioice.ice.get_host_addresses = original


RTC_CONFIGURATION = {"iceServers": []}  # no STUN/TURN: host candidates only, nothing leaves the machine
