"""Headless output: each shot as it completes (number, release time, faults with the classical line and the
cue), and a closing line per session with the live figures; in Chinese and English, `--lang`'s first."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from posture_rules.pack import RulePack

from ..headline import SEVERITY_TEXT
from ..results import CompletedShot, SessionReport, ShotResult
from ..wording.text import t as text
from .words import other, say


class ShotPrinter:
    """Prints each shot as it completes and each session's closing line, both in both languages, `lang`'s first
    (coach/live/words.py); a rule's name and cue in both as well."""

    def __init__(self, pack: RulePack, lang: str = "zh", out: TextIO | None = None):
        self.rules = pack.by_id
        self.lang = lang
        self.out = out or sys.stdout

    def _both(self, line: Callable[[str], str]) -> str:
        return f"{line(self.lang)} · {line(other(self.lang))}"

    def shot_lines(self, shot: ShotResult) -> list[str]:
        lines = [self._both(lambda lang: _shot_head(shot, lang))]
        for f in shot.faults:
            rule = self.rules.get(f.rule)
            if rule is None:
                lines.append(f"  ✗ {f.rule}")
                continue
            zh_first = self.lang == "zh"
            name = f"{rule.name_zh} {rule.name_en}" if zh_first else f"{rule.name_en} {rule.name_zh}"
            cue = f"{rule.cue_zh} / {rule.cue_en}" if zh_first else f"{rule.cue_en} / {rule.cue_zh}"
            lines.append(f"  ✗ {f.rule} {name} [{SEVERITY_TEXT.get(rule.severity, rule.severity)}]")
            lines.append(f"      {rule.section}：{rule.quote}")
            lines.append(f"      → {cue}")
        return lines

    def on_shot(self, done: CompletedShot) -> None:
        print("\n".join(self.shot_lines(done.result)), file=self.out, flush=True)

    def session_line(self, report: SessionReport) -> str:
        return self._both(lambda lang: _session_line(report, lang))

    def on_session(self, report: SessionReport, session) -> None:
        print(self.session_line(report), file=self.out, flush=True)


def _shot_head(shot: ShotResult, lang: str) -> str:
    """ "Shot 1: release at frame 80 (2.67 s) — 1 fault(s)": the release worded as `coach analyze`'s summary words
    it (coach/wording/text.py sum_release_*), one way to say it on either terminal."""
    t = shot.times_s.get("release_at")
    if shot.release_frame is None:  # never "release at frame None"
        when = text("sum_release_not_seen", lang) + say("incomplete", lang)
    else:
        frame = shot.release_frame
        at = {"frame": frame} if t is None else {"frame": frame, "t": f"{t:.2f}"}
        when = text("sum_release_at" if t is None else "sum_release_at_s", lang, **at)
        if not shot.complete:
            when += say("incomplete", lang)
    n = len(shot.faults)
    verdict = say("n_faults", lang, n=n) if n else say("clean", lang)
    return say("shot", lang, n=shot.index + 1, when=when, verdict=verdict)


def _session_line(report: SessionReport, lang: str) -> str:
    live = report.meta.get("live", {})
    lat = live.get("latency_ms", {})
    share = live.get("analysed_share")
    line = say(
        "session",
        lang,
        n=live.get("session", 1),
        shots=len(report.shots),
        analysed=live.get("frames_analysed", 0),
        released=live.get("frames_released", 0),
    )
    if share is not None:
        line += say("session_share", lang, share=share)
    if lat.get("p95") is not None:
        line += say("session_latency", lang, p50=lat["p50"], p95=lat["p95"])
    return line
