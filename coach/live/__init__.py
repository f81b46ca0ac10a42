"""Live coaching: a camera (or a file fed at its real frame rate) through the same `Analyzer` as recorded video.

    capture thread ──► Mailbox (1 slot: newest frame wins, stale ones are dropped and counted)
                         └─► analysis thread: Analyzer(mode="live").push(frame) ─► FrameResult / ShotResult
                               └─► Mailbox ─► window (main thread: overlay, summary card, replay) or headless print

Nothing waits behind the pose model: when analysis is slower than the camera the frames it could not take are
dropped, never queued, so what the archer sees is at most one frame behind.
"""

from .feeder import Arrival, Feeder
from .mailbox import Closed, Mailbox

__all__ = ["Arrival", "Closed", "Feeder", "Mailbox"]
