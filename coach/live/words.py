"""`coach live`'s own lines on the terminal, in Chinese and English: the start, the headless note, each shot as it
completes, each session's figures, what was recorded, stopping, and the camera check's headings. Every line is
printed in both languages, `--lang`'s first (`both`), as the feeder's status lines are (coach/wording/machine.py
`status_both`): whoever runs the command reads it, whichever language they chose for the cues.

The machine's English that other front ends word too (a lost camera's status, a source's errors, the camera
check's findings) is in coach/wording/; this table is the terminal's own, as the dashboard's is
coach/dashboard/i18n.py."""

from __future__ import annotations

# key -> (中文, English). Placeholders use str.format names.
LIVE_TEXT: dict[str, tuple[str, str]] = {
    "no_display": ("沒有顯示器：不開視窗執行（--no-window）", "no display; running headless (--no-window)"),
    "stopping": ("停止（Ctrl-C）：收尾這一場…", "stopping (Ctrl-C): finishing the session …"),
    # a shot as it completes (coach/live/printer.py)
    "shot": ("第 {n} 箭：{when} — {verdict}", "Shot {n}: {when} — {verdict}"),
    # (the release itself is worded as `coach analyze` words it: coach/wording/text.py sum_release_*)
    "incomplete": ("（未完成）", " (incomplete)"),
    "n_faults": ("{n} 病", "{n} fault(s)"),
    "clean": ("無病", "clean"),
    # a session's closing line
    "session": (
        "第 {n} 場：{shots} 箭；{released} 幀中分析了 {analysed} 幀",
        "Session {n}: {shots} shot(s); {analysed} of {released} frames analysed",
    ),
    "session_share": ("（{share:.0%}）", " ({share:.0%})"),
    "session_latency": ("，延遲 p50 {p50:.0f} ms、p95 {p95:.0f} ms", ", latency p50 {p50:.0f} ms, p95 {p95:.0f} ms"),
    # where the shots went
    "recorded": ("已為 {archer} 記錄 {n} 箭，存在 {db}", "recorded {n} shot(s) for {archer} in {db}"),
    "not_saved": (
        "沒有保存：沒有給 --archer，這些箭沒有記錄（coach live --archer 名字 會保存）",
        "not saved: no --archer given, so these shots were not recorded (coach live --archer NAME keeps them)",
    ),
    # the camera check (coach/live/check.py format_check)
    "check_head": (
        "攝影機檢查：{status} — 視角 {view}；{frames} 幀中 {person} 幀有人",
        "Camera check: {status} — view {view}; person in {person} of {frames} frames",
    ),
    "check_ok": ("通過", "OK"),
    "check_warn": ("注意", "WARN"),
    "check_fail": ("不通過", "FAIL"),
    "check_judgeable": ("此視角判斷的規則：{n} 條", "rules judged from this view: {n}"),  # then the rules' ids, once
    "check_none": ("無", "none"),
    "check_unobservable": (
        "（{n} 條規則需要身體關節點以外的資料，永遠不判斷：見 `coach rules`）",
        "({n} rules need more than body landmarks and are never judged: see `coach rules`)",
    ),
}


def say(key: str, lang: str = "zh", **fmt) -> str:
    zh, en = LIVE_TEXT[key]
    s = en if lang == "en" else zh
    return s.format(**fmt) if fmt else s


def other(lang: str) -> str:
    return "en" if lang == "zh" else "zh"


def both(key: str, first: str = "zh", **fmt) -> str:
    """One line in both languages, `first` first."""
    return f"{say(key, first, **fmt)} · {say(key, other(first), **fmt)}"
