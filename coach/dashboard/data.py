"""What the dashboard pages show, shaped from the store into plain rows (no Streamlit here, so it is tested
without a browser): timeline bands, verdict tables, fault jump points, shots aligned at the release, trend
tables and the rulebook with an archer's effective thresholds."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from posture_rules.pack import Profile, Rule, RulePack
from posture_rules.thresholds import THRESHOLD_KEYS, threshold_problem

from ..headline import hint_mark
from ..metrics import METRICS
from ..phases import phase_windows
from ..report.data import latest_actions, local_time, video_name
from ..store import Annotation, SessionSummary, StoredSession, TrendRow
from ..valuefmt import limits_parts, unit_mark, value_text
from ..wording.machine import reason_text
from .i18n import t

TIMELINE_PHASES = ("raise", "draw", "full_draw", "hold", "follow_through")


def archer_names(store) -> list[str]:
    """Every archer in the store, sessions or not."""
    return store.archer_names()


def rule_name(pack: RulePack, rid: str, lang: str) -> str:
    r = pack.by_id.get(rid)
    if r is None:
        return rid
    return r.name_en if lang == "en" else r.name_zh


def fault_name(pack: RulePack, rid: str, lang: str) -> str:
    """The rule's name as its fault is shown: marked "(?)" where the landmarks judge the rule with low confidence
    (a hint, not a verdict; the terminal and the reports mark it so too)."""
    return rule_name(pack, rid, lang) + hint_mark(pack, rid)


def fmt_value(v, unit: str = "", threshold: dict | None = None) -> str:
    return value_text(v, unit, threshold)


def limits_label(threshold: dict | None, unit: str, lang: str) -> str:
    """The range that is fine, in the reader's language and with the unit: "−8° 至 18°", "at least 155°"."""
    lo, hi = limits_parts(threshold, unit)
    if lo and hi:
        return t("lim_range", lang, lo=lo, hi=hi)
    return t("lim_min", lang, lo=lo) if lo else t("lim_max", lang, hi=hi) if hi else ""


def session_label(s: SessionSummary, lang: str, running: float | None = None) -> str:
    """The session picker's label; `running` is the fraction done while its analysis still runs (it is not
    complete yet, but it did not stop either)."""
    label = t(
        "session_label",
        lang,
        id=s.id,
        archer=s.archer,
        source=video_name(s.source),
        date=local_time(s.started_at),
        shots=s.shots,
        faults=s.faults,
    )
    if running is not None:
        return f"{label} · {t('analysing', lang, pct=round(100 * running))}"
    return label if s.complete else f"{label} · {t('incomplete', lang)}"


def shot_phase_windows(shot: dict, fps: float) -> dict[str, tuple[int, int]]:
    """The engine's phase frame ranges of a stored shot (coach.session/1 shot JSON)."""
    ns = SimpleNamespace(**{k: shot.get(k) for k in _PHASE_KEYS})
    if ns.end_frame is None:
        ns.end_frame = ns.release_frame if ns.release_frame is not None else ns.anchor_frame
    return phase_windows(ns, lambda f: None if f is None else f / fps)


_PHASE_KEYS = ("raise_start_frame", "draw_start_frame", "anchor_frame", "release_frame", "end_frame")


def dismissed_findings(annotations: list[Annotation] | None) -> set[tuple[int | None, str | None]]:
    """(shot, rule) of every finding whose coach's last accept/dismiss is a dismissal."""
    return {k for k, v in latest_actions(annotations or []).items() if v["action"] == "dismiss"}


def strike(text: str) -> str:
    """Text struck through with U+0336, which survives a data grid cell (no markup there)."""
    return "".join(c + "\u0336" for c in text)


def fault_window(f: dict, shot: dict) -> tuple[int | None, int | None]:
    a = f.get("start_frame")
    b = f.get("end_frame")
    if a is None:
        a = shot.get("anchor_frame")
    if b is None:
        b = shot.get("release_frame") if shot.get("release_frame") is not None else a
    return a, b


def timeline_rows(
    shots: list[dict], fps: float, pack: RulePack, lang: str, annotations: list[Annotation] | None = None
) -> list[dict]:
    """Bands for the timeline chart: per shot its phases, and each fault (not dismissed) on its own lane."""
    dismissed = dismissed_findings(annotations)
    rows = []
    for sh in shots:
        n = sh["index"] + 1
        shot_label = t("shot", lang, n=n)
        windows = shot_phase_windows(sh, fps)
        for ph in TIMELINE_PHASES:
            if ph not in windows:
                continue
            a, b = windows[ph]
            if b <= a:
                continue
            rows.append(
                {
                    "lane": f"{shot_label} · {t('lane_phases', lang)}",
                    "kind": t(f"phase_{ph}", lang),
                    "start_s": a / fps,
                    "end_s": b / fps,
                    "shot": n,
                    "rule": "",
                    "label": f"{shot_label} · {t(f'phase_{ph}', lang)}",
                }
            )
        for f in sh.get("findings", []):
            if f.get("verdict") != "fault" or (sh["index"], f["rule"]) in dismissed:
                continue
            a, b = fault_window(f, sh)
            if a is None:
                continue
            name = rule_name(pack, f["rule"], lang)
            rows.append(
                {
                    "lane": f"{shot_label} · {name}",
                    "kind": t("phase_fault", lang),
                    "start_s": a / fps,
                    "end_s": max(b + 1, a + 1) / fps,
                    "shot": n,
                    "rule": f["rule"],
                    "label": f"{shot_label} · {name}",
                }
            )
    return rows


def fault_jumps(
    shots: list[dict], fps: float, pack: RulePack, lang: str, annotations: list[Annotation] | None = None
) -> list[dict]:
    """Every fault (not dismissed) with the moment to jump to (a little before it starts, so it is seen coming)."""
    dismissed = dismissed_findings(annotations)
    out = []
    for sh in shots:
        for f in sh.get("findings", []):
            if f.get("verdict") != "fault" or (sh["index"], f["rule"]) in dismissed:
                continue
            a, b = fault_window(f, sh)
            if a is None:
                continue
            start = a / fps
            out.append(
                {
                    "shot": sh["index"] + 1,
                    "rule": f["rule"],
                    "start_s": start,
                    "jump_s": max(0.0, start - 0.5),
                    "frame": a,
                    "label": f"{t('shot', lang, n=sh['index'] + 1)} · {rule_name(pack, f['rule'], lang)} · {start:.2f} s",
                }
            )
    return out


def coach_note(act: dict, lang: str) -> str:
    """The coach's verdict and comments on one finding. A comment-only note has no accept/dismiss, so its
    action is empty and has no label of its own."""
    words = [t(f"act_{act['action']}", lang)] if act.get("action") else []
    return " · ".join(words + list(act.get("comments", [])))


def verdict_rows(shot: dict, pack: RulePack, annotations: list[Annotation], lang: str) -> list[dict]:
    """The shot's verdict table: faults first, with the classical quote and the cue in both languages. A fault
    the coach dismissed is struck through, after the standing faults, with the coach's note."""
    acts = latest_actions(annotations)

    def shown(f: dict) -> str:
        dismissed = acts.get((shot["index"], f["rule"]), {}).get("action") == "dismiss"
        return "dismissed" if f["verdict"] == "fault" and dismissed else f["verdict"]

    order = {"fault": 0, "dismissed": 1, "not_assessable": 2, "pass": 3}
    rows = []
    for f in sorted(shot.get("findings", []), key=lambda f: order.get(shown(f), 4)):
        r = pack.by_id.get(f["rule"])
        v = shown(f)
        a, b = fault_window(f, shot) if f["verdict"] == "fault" else (None, None)
        act = acts.get((shot["index"], f["rule"]), {})
        verdict = f"{strike(t('v_fault', lang))} {t('v_dismissed', lang)}" if v == "dismissed" else t(f"v_{v}", lang)
        rows.append(
            {
                t("col_rule", lang): fault_name(pack, f["rule"], lang)
                if f["verdict"] == "fault"
                else rule_name(pack, f["rule"], lang),
                t("col_verdict", lang): verdict,
                t("col_value", lang): fmt_value(f.get("value"), f.get("unit") or "", f.get("threshold"))
                if f["verdict"] != "not_assessable"
                else reason_text(f.get("reason"), lang),
                t("col_limits", lang): limits_label(f.get("threshold"), f.get("unit") or "", lang),
                t("col_frames", lang): f"{a}–{b}" if a is not None else "",
                t("col_quote", lang): f"{r.section}：{r.quote}" if r else "",
                t("col_cue_zh", lang): r.cue_zh if r else "",
                t("col_cue_en", lang): r.cue_en if r else "",
                t("col_coach", lang): coach_note(act, lang),
            }
        )
    return rows


def aligned_series(series, shot: dict, fps: float, names: list[str] | None = None) -> list[dict]:
    """A shot's per-frame metrics as rows {metric, t, value}, t = seconds from its release (0 = release).

    Metrics judged against the archer's own pose (as the draw starts, or standing before the raise:
    `Metric.relative_to`) are shown as that change (the baseline subtracted)."""
    if series is None:
        return []
    ref = shot.get("release_frame")
    if ref is None:
        ref = shot.get("anchor_frame") or series.start_frame
    frames = series.frames()
    tt = (frames - ref) / fps
    rows = []
    for k, m in enumerate(series.names):
        if names is not None and m not in names:
            continue
        vals = series.data[k].astype(np.float64)
        if m in series.offsets:
            vals = vals - series.offsets[m]
        for ti, v in zip(tt.tolist(), vals.tolist()):
            if math.isfinite(v):
                rows.append({"metric": m, "t": round(ti, 4), "value": v})
    return rows


def measure_label(m: str, pack: RulePack, lang: str) -> str:
    """A metric or shot measure as a reader names it: the rules judged by it (else its own name), and its unit."""
    rules = [r for r in pack.observable if r.metric == m]
    names = dict.fromkeys((r.name_en if lang == "en" else r.name_zh) for r in rules)
    name = " / ".join(names)
    if not name:
        try:
            name = t(f"m_{m}", lang)
        except KeyError:
            name = m.replace("_", " ")
    unit = unit_mark(METRICS[m].unit if m in METRICS else "").strip()
    return f"{name} ({unit})" if unit else name


metric_label = measure_label  # the Compare page's name for it


def fault_rate_rows(trend: list[TrendRow], pack: RulePack, lang: str) -> list[dict]:
    """Per session and rule: faults / assessed shots."""
    rows = []
    for s in trend:
        for rid, counts in s.rules.items():
            assessed = counts.get("fault", 0) + counts.get("pass", 0)
            if not assessed:
                continue
            rows.append(
                {
                    "session": s.id,
                    "date": s.started_at,
                    "rule": rule_name(pack, rid, lang),
                    "rule_id": rid,
                    "faults": counts.get("fault", 0),
                    "rate": counts.get("fault", 0) / assessed,
                }
            )
    return rows


CONSISTENCY_KEYS = ("anchor_spread", "hold_time_sd", "release_interval_cv", "draw_time_sd", "draw_length_cv")


def consistency_rows(sessions: list[StoredSession]) -> list[dict]:
    """Per session, the session-scope measures of its report (anchor spread, hold-time spread, 間若一 …)."""
    rows = []
    for s in sessions:
        rep = s.report or {}
        measures = (rep.get("consistency") or {}).get("measures") or {}
        for k, v in measures.items():
            if v is None or k not in CONSISTENCY_KEYS:
                continue
            rows.append({"session": s.id, "date": s.started_at, "measure": k, "value": float(v)})
    return rows


def hold_time_rows(trend: list[TrendRow]) -> list[dict]:
    """Per session, the mean hold and draw time of its shots."""
    rows = []
    for s in trend:
        for k, v in s.measures.items():
            if k in ("hold_time", "draw_time"):
                rows.append({"session": s.id, "date": s.started_at, "measure": k, "value": v})
    return rows


# ---- rulebook ----------------------------------------------------------------------------------------------
def profile_of(archer) -> Profile:
    if archer is None:
        return Profile()
    return archer.profile()


def effective_rule(pack: RulePack, profile: Profile, rid: str) -> Rule:
    return profile.apply(pack).by_id[rid]


def threshold_values(rule: Rule) -> dict[str, float]:
    return {k: getattr(rule.thresholds, k) for k in THRESHOLD_KEYS if getattr(rule.thresholds, k) is not None}


def check_override(values: dict[str, float], lang: str = "en") -> str | None:
    """Why these thresholds cannot work, or None, in `lang`. The same rules as the pack loader: an exit beyond
    its enter would make a fault impossible to clear, and a band must leave room between below and above."""
    problem = threshold_problem(values, override=True)

    def name(k: str) -> str:
        return t(f"th_{k}", lang)

    if problem is None:
        return None
    if problem.code == "not_finite":
        return t("bad_number", lang, what=name(problem.key))
    if problem.code == "exit_beyond_enter":
        side = problem.key.rpartition("_")[2]
        return t(f"bad_exit_{side}", lang, exit=name(f"exit_{side}"), enter=name(f"enter_{side}"))
    return t("bad_band", lang, low=name("enter_below"), high=name("enter_above"))


def with_override(overrides: dict, rid: str, values: dict[str, float] | None) -> dict:
    """The archer's overrides with one rule's thresholds set (or removed, for None)."""
    out = {k: dict(v) for k, v in (overrides or {}).items()}
    if values is None:
        out.pop(rid, None)
    else:
        out[rid] = {k: float(x) for k, x in values.items() if x is not None}
    return out


def profile_with(profile: Profile, overrides: dict) -> Profile:
    return replace(profile, overrides=overrides)  # Profile freezes a copy of them
