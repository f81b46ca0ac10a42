"""Chinese and English labels for the dashboard: `t("key")` in the language chosen in the sidebar."""

from __future__ import annotations

LANGS = ("zh", "en")
LANG_NAMES = {"zh": "中文", "en": "English"}

# key -> (中文, English). Placeholders use str.format names.
TEXT: dict[str, tuple[str, str]] = {
    "app_title": ("射經教練", "射經 Coach"),
    "language": ("語言", "Language"),
    "db": ("資料庫", "Database"),
    # pages
    "page_analyze": ("分析", "Analyze"),
    "page_review": ("回顧", "Session review"),
    "page_compare": ("比較", "Compare"),
    "page_trends": ("射手與趨勢", "Archer & trends"),
    "page_rulebook": ("射經規則", "Rulebook"),
    "page_live": ("即時", "Live"),
    # analyze
    "analyze_intro": (
        "上傳一段射箭影片或選一段範例影片，選擇射手，然後開始分析。",
        "Upload a video of an archer or pick a sample clip, choose the archer, then analyse.",
    ),
    "source": ("影片來源", "Video source"),
    "source_sample": ("範例影片", "Sample video"),
    "source_upload": ("上傳影片", "Upload a video"),
    "sample": ("範例", "Sample"),
    "no_samples": ("sample_videos/ 裡沒有範例影片。", "There are no sample videos in sample_videos/."),
    "upload": ("影片檔（MP4、MOV、AVI、MKV、WebM）", "Video file (MP4, MOV, AVI, MKV, WebM)"),
    "upload_limit": ("每個檔案上限 {mb} MB。", "Up to {mb} MB per file."),
    "archer": ("射手", "Archer"),
    "new_archer": ("＋ 新射手", "+ New archer"),
    "archer_name": ("射手姓名（任何文字）", "Archer's name (any script)"),
    "handedness": ("慣用手", "Handedness"),
    "hand_auto": ("自動偵測", "detect"),
    "hand_right": ("右手拉弦", "right-handed"),
    "hand_left": ("左手拉弦", "left-handed"),
    "draw_style": ("拉弦法", "Draw style"),
    "style_mediterranean": ("地中海式", "Mediterranean"),
    "style_thumb": ("扳指（拇指）", "thumb ring"),
    "tolerance": ("寬嚴", "Tolerance"),
    "tol_beginner": ("初學（寬）", "beginner (lenient)"),
    "tol_club": ("一般", "club"),
    "tol_elite": ("精英（嚴）", "elite (strict)"),
    "start": ("開始分析", "Analyse"),
    "need_name": ("請輸入射手姓名。", "Enter the archer's name."),
    "need_video": ("請先上傳或選擇影片。", "Upload or pick a video first."),
    "queued": ("排隊等候分析…", "Waiting to analyse…"),
    "stage_analyse": ("分析姿勢", "Analysing posture"),
    "stage_render": ("繪製標註影片", "Rendering the annotated video"),
    "stage_done": ("完成", "Done"),
    "frames_of": ("第 {done} / {total} 幀", "frame {done} of {total}"),
    "analysis_failed": ("無法分析：{error}", "Could not analyse: {error}"),
    "analysis_done": ("分析完成：第 {sid} 場，{shots} 箭。", "Analysis done: session {sid}, {shots} shot(s)."),
    "open_review": ("打開回顧", "Open the review"),
    "demo_running": (
        "第一次啟動：正在分析範例影片「{name}」，完成後即可回顧。",
        "First start: analysing the sample clip “{name}” — its review opens when done.",
    ),
    # review
    "empty_store": (
        "還沒有任何射箭紀錄。到「分析」頁上傳影片或選一段範例影片開始。",
        "No sessions yet. Go to Analyze and upload a video or pick a sample clip to start.",
    ),
    "session": ("場次", "Session"),
    "session_label": (
        "#{id} {archer} · {source} · {date} · {shots} 箭 · {faults} 病",
        "#{id} {archer} · {source} · {date} · {shots} shots · {faults} faults",
    ),
    "incomplete": ("未完成（分析中斷）", "incomplete (analysis stopped)"),
    "no_video": ("這場沒有標註影片。", "This session has no annotated video."),
    "timeline": ("時間軸：每箭的階段與病", "Timeline: phases of each shot and the faults"),
    "jump_to": ("跳到病處", "Jump to a fault"),
    "jump_none": ("（從頭播放）", "(play from the start)"),
    "no_faults": ("這場沒有發現病。", "No faults found in this session."),
    "shot": ("第 {n} 箭", "Shot {n}"),
    "shot_word": ("箭", "Shot"),
    "verdicts": ("每箭判定", "Verdicts per shot"),
    "key_frames": ("關鍵畫面", "Key frames"),
    "kf_full_draw": ("滿弓", "Full draw"),
    "kf_release": ("發矢", "Release"),
    "no_key_frames": ("沒有關鍵畫面。", "No key frames stored."),
    "consistency": ("全場一致性", "Session consistency"),
    "coach_review": ("教練評註", "Coach's review"),
    "finding": ("判定", "Finding"),
    "action": ("動作", "Action"),
    "act_accept": ("確認", "accept"),
    "act_dismiss": ("駁回", "dismiss"),
    "act_comment": ("只評註", "comment only"),
    "comment": ("評語", "Comment"),
    "save": ("儲存", "Save"),
    "saved": ("已儲存。", "Saved."),
    "annotations": ("已有評註", "Annotations so far"),
    "notes": ("備註", "Notes"),
    # table columns
    "col_shot": ("箭", "shot"),
    "col_rule": ("規則", "rule"),
    "col_verdict": ("判定", "verdict"),
    "col_value": ("量值", "value"),
    "col_limits": ("合格範圍", "ok if"),
    "col_quote": ("原文", "classical text"),
    "col_cue_zh": ("提示（中）", "cue (zh)"),
    "col_cue_en": ("提示（英）", "cue (en)"),
    "col_frames": ("幀", "frames"),
    "col_coach": ("教練", "coach"),
    "v_fault": ("病", "fault"),
    "v_pass": ("合", "pass"),
    "v_not_assessable": ("不可判", "n/a"),
    "lane_phases": ("階段", "phases"),
    "time_s": ("時間（秒）", "time (s)"),
    "phase_raise": ("舉弓", "raise"),
    "phase_draw": ("開弓", "draw"),
    "phase_full_draw": ("滿弓", "full draw"),
    "phase_hold": ("審固", "hold"),
    "phase_follow_through": ("收勢", "follow-through"),
    "phase_fault": ("病", "fault"),
    # compare
    "compare_intro": (
        "兩箭並排，以發矢對齊（0 = 發矢）。",
        "Two shots side by side, synchronised at the release (0 = release).",
    ),
    "shot_a": ("甲箭", "Shot A"),
    "shot_b": ("乙箭", "Shot B"),
    "need_shots": ("至少要有一箭才能比較。", "Compare needs at least one analysed shot."),
    "metrics": ("量值", "Metrics"),
    "t_release": ("距發矢（秒）", "time from release (s)"),
    "no_series": ("這箭沒有逐幀量值。", "No per-frame metrics stored for this shot."),
    "measures": ("每箭量度", "Shot measures"),
    # trends
    "sessions_over_time": ("歷次場次", "Sessions over time"),
    "fault_rate": ("各規則出病比率", "Fault rate per rule"),
    "consistency_measures": (
        "一致性：靠位分散、持滿時間、間若一",
        "Consistency: anchor spread, hold time, 間若一 rhythm",
    ),
    "no_archers": ("還沒有射手。", "No archers yet."),
    "no_sessions_archer": ("這位射手還沒有場次。", "This archer has no sessions yet."),
    "date": ("日期", "date"),
    "rate": ("比率", "rate"),
    "value": ("數值", "value"),
    "measure": ("量度", "measure"),
    # rulebook
    "rulebook_intro": (
        "王琚《射經》的每條規則：原文、意思、提示、適用階段與視角、門檻。",
        "Every rule of Wang Ju's 射經: the classical text, its meaning, the cue, phases, views and thresholds.",
    ),
    "not_observable": ("不可觀測（不檢查）", "not observable (not checked)"),
    "needs": ("需要", "needs"),
    "meaning": ("意思", "Meaning"),
    "cue": ("提示", "Cue"),
    "phases": ("階段", "Phases"),
    "views": ("視角", "Views"),
    "thresholds": ("門檻", "Thresholds"),
    "severity": ("嚴重度", "Severity"),
    "metric": ("量值", "Metric"),
    "adjust": ("為射手調整門檻", "Adjust thresholds for an archer"),
    "adjust_intro": (
        "調整後的門檻存為射手的個人設定，下一次分析就會用。",
        "Adjusted thresholds are saved to the archer's profile and used by the next analysis.",
    ),
    "rule": ("規則", "Rule"),
    "reset": ("恢復預設", "Reset to the pack's values"),
    "override_saved": ("已為 {archer} 儲存 {rule} 的門檻。", "Saved {rule} thresholds for {archer}."),
    "override_reset": ("已恢復 {rule} 的預設門檻。", "Reset {rule} to the pack's thresholds."),
    "overridden": ("已調整", "adjusted"),
    "effective_for": ("（{archer} 的有效值）", "(effective for {archer})"),
    "th_enter_above": ("高於此值為病", "fault above"),
    "th_exit_above": ("降回此值以下解除", "clears below"),
    "th_enter_below": ("低於此值為病", "fault below"),
    "th_exit_below": ("升回此值以上解除", "clears above"),
    # live
    "live_intro": (
        "即時視圖：用網路攝影機邊射邊看姿勢與病。",
        "Live view: see posture and faults from a webcam while shooting.",
    ),
    "live_missing": (
        "即時模組（coach.live）尚未安裝；完成後會在此頁出現。現在可用「分析」頁分析錄影。",
        "The live module (coach.live) is not available yet; it plugs into this page. Meanwhile, analyse a "
        "recording on the Analyze page.",
    ),
}


def t(key: str, lang: str = "zh", **fmt) -> str:
    zh, en = TEXT[key]
    s = en if lang == "en" else zh
    return s.format(**fmt) if fmt else s


def both(key: str, **fmt) -> str:
    """Both languages, for places that show them together."""
    return f"{t(key, 'zh', **fmt)} · {t(key, 'en', **fmt)}"
