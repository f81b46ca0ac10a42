"""Headless output: each shot as it completes (number, release time, faults with the classical line and the
cue), and a closing line per session with the live figures."""

from __future__ import annotations

import sys
from typing import TextIO

from posture_rules.pack import RulePack

from ..results import CompletedShot, SessionReport, ShotResult


class ShotPrinter:
    def __init__(self, pack: RulePack, lang: str = "zh", out: TextIO | None = None):
        self.rules = pack.by_id
        self.lang = lang
        self.out = out or sys.stdout

    def shot_lines(self, shot: ShotResult) -> list[str]:
        t = shot.times_s.get("release_at")
        if shot.release_frame is None:  # never "release at frame None"
            when = "release not seen (incomplete)"
        else:
            when = f"release at frame {shot.release_frame}" + (f" ({t:.2f} s)" if t is not None else "")
            if not shot.complete:
                when += " (incomplete: release not seen)"
        faults = shot.faults
        lines = [f"Shot {shot.index + 1}: {when} — " + (f"{len(faults)} fault(s)" if faults else "clean")]
        for f in faults:
            rule = self.rules.get(f.rule)
            if rule is None:
                lines.append(f"  ✗ {f.rule}")
                continue
            name = rule.name_zh if self.lang == "zh" else f"{rule.name_en} ({rule.name_zh})"
            cue = f"{rule.cue_zh} / {rule.cue_en}" if self.lang == "zh" else f"{rule.cue_en} / {rule.cue_zh}"
            lines.append(f"  ✗ {f.rule} {name} [{rule.severity}]")
            lines.append(f"      {rule.section}：{rule.quote}")
            lines.append(f"      → {cue}")
        return lines

    def on_shot(self, done: CompletedShot) -> None:
        print("\n".join(self.shot_lines(done.result)), file=self.out, flush=True)

    def on_session(self, report: SessionReport, session) -> None:
        live = report.meta.get("live", {})
        lat = live.get("latency_ms", {})
        share = live.get("analysed_share")
        print(
            f"Session {live.get('session', 1)}: {len(report.shots)} shot(s); "
            f"{live.get('frames_analysed', 0)} of {live.get('frames_released', 0)} frames analysed"
            + (f" ({share:.0%})" if share is not None else "")
            + (f", latency p50 {lat['p50']:.0f} ms, p95 {lat['p95']:.0f} ms" if lat.get("p95") is not None else ""),
            file=self.out,
            flush=True,
        )
