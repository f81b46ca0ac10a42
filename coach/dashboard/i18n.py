"""Chinese and English labels for the dashboard: `t("key")` in the language chosen in the sidebar.

Over ~400 lines because it is one table (data, not logic): one place to find and translate every label. The
wording of what the machine writes (why a rule was not judged, session notes, errors, the camera check, the live
run's status) is in `coach/wording/text.py`, which the reports and the terminal read too; it is part of `TEXT`."""

from __future__ import annotations

from ..wording.text import MACHINE_TEXT

LANGS = ("zh", "en")
LANG_NAMES = {"zh": "中文", "en": "English"}

# key -> (中文, English). Placeholders use str.format names.
TEXT: dict[str, tuple[str, str]] = {
    "app_title": ("射經教練", "射經 Coach"),
    "language": ("語言", "Language"),
    "db": ("資料庫", "Database"),
    "page_error": (
        "這一頁出了問題（{error}），詳情已寫入記錄。",
        "Something went wrong on this page ({error}); the details are in the log.",
    ),
    "page_back": ("回到回顧頁", "Back to the session review"),
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
    "no_samples": ("範例影片資料夾裡沒有影片。", "The sample video folder has no videos."),
    "upload": (
        "影片檔（MP4、MOV、AVI、MKV、WebM、攝影機的 MTS/M2TS 等）",
        "Video file (MP4, MOV, AVI, MKV, WebM, a camcorder's MTS/M2TS, …)",
    ),
    "upload_limit": ("每個檔案上限 {mb} MB。", "Up to {mb} MB per file."),
    "archer": ("射手", "Archer"),
    "new_archer": ("＋ 新射手", "+ New archer"),
    "pick_archer": ("— 選擇或新增射手 —", "— choose or create an archer —"),
    "need_archer": ("請先選擇射手，或新增一位。", "Choose the archer first, or create one."),
    "archer_name": ("射手姓名（任何文字）", "Archer's name (any script)"),
    "handedness": ("慣用手", "Handedness"),
    "hand_auto": ("自動偵測", "detect"),  # hand_right, hand_left: coach/wording/text.py (the terminal says them too)
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
    "analysing": ("分析中… {pct}%", "analysing… {pct}%"),
    "analysing_note": (
        "這場還在分析中（{pct}%）：已完成的箭先列在下面，完成後會自動更新。",
        "This session is still being analysed ({pct}%): the shots done so far are below; it updates when done.",
    ),
    "no_video": ("這場沒有標註影片。", "This session has no annotated video."),
    "video_stale": (
        "標註影片早於這場最近一次分析，所以先播原始影片；在「分析」頁重新分析即可重繪。",
        "The annotated video predates this session's latest analysis, so the original plays; analyse it again "
        "on the Analyze page to redraw it.",
    ),
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
    # correcting the phases (coach/dashboard/corrections_panel.py)
    "corr_title": ("校正分期", "Correct the phases"),
    "corr_intro": (
        "機器判錯時，把這一箭的時點移到目前畫面，或刪去、補記、標為退弓；儲存後依保存的骨架重新判斷，不需再跑模型。",
        "Where the machine is wrong, move this shot's marks to the current frame, or delete, add or let down a "
        "shot; saving re-judges it from the kept landmarks, without running the model again.",
    ),
    "corr_no_track": (
        "這場分析於保存骨架之前，無法校正；重新分析影片即可校正。",
        "This session was analysed before pose tracks were kept, so it cannot be corrected; analyse the video "
        "again to correct it.",
    ),
    "corr_shot": ("要校正的箭", "Shot to correct"),
    "corr_new_shot": ("（補記一箭）", "(add a missed shot)"),
    "corr_frame": ("目前畫面（幀）", "Current frame"),
    "corr_marks": ("時點", "Marks"),
    "corr_mark": ("時點", "mark"),
    "corr_machine": ("原判", "now"),
    "corr_pending": ("改為", "change to"),
    "corr_set": ("{mark}設在此幀", "Set {mark} to this frame"),
    "corr_delete": ("刪去此箭（非一箭）", "Delete shot (not a shot)"),
    "corr_let_down": ("退弓（未發）", "Let-down (no release)"),
    "corr_add": ("在此幀補記一箭（發矢）", "Add a shot with its release here"),
    "corr_by": ("校正者", "Corrected by"),
    "corr_save": ("儲存校正並重新判斷", "Save and re-judge"),
    "corr_clear": ("取消", "Clear"),
    "corr_nothing": ("尚未改動。", "Nothing changed yet."),
    "corr_will_delete": ("將刪去第 {n} 箭。", "Shot {n} will be deleted."),
    "corr_will_let_down": ("第 {n} 箭將標為退弓。", "Shot {n} will be marked a let-down."),
    "corr_will_add": ("將在第 {frame} 幀補記一箭。", "A shot released at frame {frame} will be added."),
    "corr_done": (
        "已由 {by} 校正，{secs:.2f} 秒內重新判斷：{faults} 個病。",
        "Corrected by {by}; re-judged in {secs:.2f} s: {faults} fault(s).",
    ),
    "corr_removed": (
        "已由 {by} 校正：此箭已移除，全場一致性已重新判斷。",
        "Corrected by {by}: the shot is removed and the session re-judged.",
    ),
    "corrected_by": ("由 {by} 校正", "corrected by {by}"),
    "added_by": ("由 {by} 補記", "added by {by}"),
    "corr_history": ("校正紀錄", "Corrections"),
    "corr_act_move": ("移動時點", "marks moved"),
    "corr_act_delete": ("刪去", "deleted"),
    "corr_act_add": ("補記", "added"),
    "corr_act_let_down": ("退弓", "let-down"),
    "notes": ("備註", "Notes"),
    # table columns (col_value, col_limits, col_frames and the verdicts v_fault, v_pass, v_not_assessable are in
    # coach/wording/text.py: the terminal summary's columns say them too)
    "col_shot": ("箭", "shot"),
    "col_rule": ("規則", "rule"),
    "col_verdict": ("判定", "verdict"),
    "lim_range": ("{lo} 至 {hi}", "{lo} to {hi}"),
    "lim_min": ("至少 {lo}", "at least {lo}"),
    "lim_max": ("至多 {hi}", "at most {hi}"),
    "col_quote": ("原文", "classical text"),
    "col_cue_zh": ("提示（中）", "cue (zh)"),
    "col_cue_en": ("提示（英）", "cue (en)"),
    "col_coach": ("教練", "coach"),
    "v_dismissed": ("教練駁回", "dismissed by the coach"),
    "lane_phases": ("階段", "phases"),
    "time_s": ("時間（秒）", "time (s)"),
    "tt_what": ("項目", "what"),
    "tt_from": ("起（秒）", "from (s)"),
    "tt_to": ("迄（秒）", "to (s)"),
    # phase_raise, phase_draw, phase_full_draw, phase_hold, phase_follow_through: coach/wording/text.py
    "phase_fault": ("病", "fault"),
    "phase_setup": ("預備", "set-up"),
    "phase_release": ("發矢", "release"),
    "phase_session": ("全場", "whole session"),
    "focus_title": ("先練什麼", "What to work on first"),
    # focus_session, focus_shots ("the whole session", "2 of 3 shots"): coach/wording/text.py
    "focus_shot": ("此箭先練：{rule}", "Work on first in this shot: {rule}"),
    "sev_minor": ("輕", "minor"),
    "sev_major": ("重", "major"),
    "sev_critical": ("極重", "critical"),
    # measures without a rule of their own (the shot measures table)
    "m_draw_length": ("引弓長度", "draw length"),
    "m_anchor_height": ("靠位高度", "anchor height"),
    "m_draw_time": ("引弓時間", "draw time"),
    "m_hold_time": ("持滿時間", "hold time"),
    # session consistency measures (the trends page)
    "ms_anchor_spread": ("靠位分散", "anchor spread"),
    "ms_hold_time_sd": ("持滿時間離散", "hold time spread"),
    "ms_release_interval_cv": ("間若一：發矢間隔變異", "間若一: release interval variation"),
    "ms_draw_time_sd": ("引弓時間離散", "draw time spread"),
    "ms_draw_length_cv": ("引滿長度變異", "draw length variation"),
    "ms_hold_time": ("平均持滿", "mean hold"),
    "ms_draw_time": ("平均引弓", "mean draw"),
    # threshold overrides that cannot work (the rulebook)
    "bad_number": ("「{what}」必須是數字。", "“{what}” must be a number."),
    "bad_exit_above": (
        "「{exit}」不能高於「{enter}」：病會無法解除。",
        "“{exit}” must not lie above “{enter}”: the fault could never clear.",
    ),
    "bad_exit_below": (
        "「{exit}」不能低於「{enter}」：病會無法解除。",
        "“{exit}” must not lie below “{enter}”: the fault could never clear.",
    ),
    "bad_band": ("「{low}」必須小於「{high}」。", "“{low}” must be lower than “{high}”."),
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
    # the frame player (coach/dashboard/player)
    "pl_frame": ("幀", "frame"),
    "pl_back": ("後退一幀（←）", "One frame back (←)"),
    "pl_fwd": ("前進一幀（→）", "One frame forward (→)"),
    "pl_play": ("播放（空白鍵）", "Play (space)"),
    "pl_pause": ("暫停（空白鍵）", "Pause (space)"),
    "pl_speed": ("速度", "Speed"),
    "pl_loop": ("重播這一箭", "Loop this shot"),
    "pl_ghost": ("疊影：乙箭骨架", "Ghost: shot B's skeleton"),
    "pl_keys": (
        "點一下播放器，再用 ← → 逐幀、空白鍵播放；刻度：階段與病，點一下跳過去。",
        "Click the player, then ← → step a frame and space plays; the ticks are phase marks and faults: "
        "click one to jump to it.",
    ),
    "pl_scrub": ("時間軸", "Scrub bar"),
    "pl_mark_raise": ("舉弓", "raise"),
    "pl_skeleton": ("顯示骨架", "Show the skeleton"),
    "pl_no_plain": (
        "沒有原始影片可播（只有畫了骨架的影片）。",
        "The original video is not available (only the one with the skeleton).",
    ),
    "pl_jump": ("跳到", "Jump to"),
    "pl_sync": ("對齊於", "Synchronise at"),
    "pl_side_by_side": ("兩箭並排", "Side by side"),
    "pl_no_video": ("這一箭沒有可播放的影片。", "No playable video for this shot."),
    "pl_ghost_sparse": (
        "疊影只在關鍵畫面（滿弓、發矢）上：逐幀骨架沒有保存。",
        "The ghost shows at the key frames only (full draw, release): per-frame poses are not stored.",
    ),
    "pl_ghost_none": ("沒有可疊的骨架資料。", "No stored skeleton to overlay."),
    "pl_threshold": ("合格範圍", "fine range"),
    "pl_metric_release": ("發矢 t = 0", "release t = 0"),
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
    "clean_reads": (
        "無病的箭量得 {reads}：較嚴的標準（精英）也不把門檻收緊到此範圍內",
        "Clean shots read {reads}: a stricter tolerance (elite) tightens no limit past it",
    ),
    "th_enter_above": ("高於此值為病", "fault above"),
    "th_exit_above": ("降回此值以下解除", "clears below"),
    "th_enter_below": ("低於此值為病", "fault below"),
    "th_exit_below": ("升回此值以上解除", "clears above"),
    # live
    "live_intro": (
        "即時視圖：用網路攝影機邊射邊看姿勢與病。",
        "Live view: see posture and faults from a webcam while shooting.",
    ),
    # live page (coach/dashboard/live_page.py)
    "live_mode": ("攝影機", "Camera"),
    "live_mode_machine": ("本機攝影機／影片", "This computer's camera / a video"),
    "live_mode_browser": ("瀏覽器攝影機（手機、平板）", "The browser's camera (phone, tablet)"),
    "live_source": ("來源：攝影機編號或影片檔", "Source: camera index or video file"),
    "live_source_help": (
        "0 是第一台攝影機；範例或上傳的影片會以實際速度播放，就像攝影機。其他檔案或網址需由管理者在 "
        "COACH_LIVE_SOURCES 中允許。",
        "0 is the first camera; a sample or uploaded video is played at its real rate, like a camera. Other "
        "files or URLs only where the operator allows them in COACH_LIVE_SOURCES.",
    ),
    "live_start": ("開始", "Start"),
    "live_stop": ("停止", "Stop"),
    "live_need_source": ("請輸入來源。", "Enter a source."),
    "live_cannot_open": ("無法開啟攝影機：{error}", "Cannot open the camera: {error}"),
    "live_failed": ("即時分析中斷：{error}", "The live session stopped: {error}"),
    "live_starting": ("載入姿勢模型…", "Loading the pose model…"),
    "live_running": ("進行中：{source}", "Live: {source}"),
    "live_stopped": ("已停止：{source}", "Stopped: {source}"),
    "live_saved": (
        "每一箭完成時已存入資料庫（場次 {sids}），可在「回顧」頁查看。",
        "Every shot was saved the moment it completed (session {sids}); see it on the Session review page.",
    ),
    "live_waiting_frame": ("等待第一幀…", "Waiting for the first frame…"),
    "live_faults": ("病（即時）", "Faults, as they come"),
    "live_no_faults": ("尚未發現病。", "No fault so far."),
    "live_fault_at": ("第 {shot} 箭 · {t:.1f} 秒", "shot {shot} · {t:.1f} s"),
    "live_fault_at_noshot": ("{t:.1f} 秒", "{t:.1f} s"),
    "live_shots": ("每箭小結", "Shot summaries"),
    "live_no_shots": ("發矢後，這裡會出現該箭的小結。", "A summary of each shot appears here after its release."),
    "live_shot_title": ("第 {n} 箭", "Shot {n}"),
    "live_release_at": ("發矢 {t:.1f} 秒", "release at {t:.1f} s"),
    "live_hold": ("審固 {t:.1f} 秒", "hold {t:.1f} s"),
    "live_incomplete": ("（未見發矢）", "(release not seen)"),
    "live_clean": ("無病", "clean shot"),
    "live_n_faults": ("{n} 病", "{n} fault(s)"),
    "live_tally": ("本場統計", "Session tally"),
    "live_m_shots": ("箭數", "Shots"),
    "live_m_clean": ("無病", "Clean"),
    "live_m_dropped": ("丟棄幀數", "Dropped frames"),
    "live_m_analysed": ("已分析幀", "Frames analysed"),
    "live_m_latency": ("延遲 p50", "Latency p50"),
    "live_dropped_note": (
        "分析跟不上：{released} 幀中丟棄了 {dropped} 幀（分析了 {share:.0%}）。關掉其他程式，或用 `coach live` 在終端機看。",
        "The analysis could not keep up: {dropped} of {released} frames were dropped ({share:.0%} analysed). "
        "Close other programs, or watch with `coach live` in a terminal.",
    ),
    "live_top_faults": ("最常見的病", "Most frequent faults"),
    "live_browser_intro": (
        "按「開始」打開這台裝置的攝影機（手機或平板須與本機在同一網路）；影像送到本機分析，標註後傳回。",
        "Press Start to open this device's camera (a phone or tablet on the same network); the video is "
        "analysed here and comes back annotated.",
    ),
    "live_browser_no_server": (
        "瀏覽器攝影機需要以 `streamlit run app.py` 啟動的儀表板。",
        "The browser camera needs the dashboard running under `streamlit run app.py`.",
    ),
    "live_browser_idle": ("按「開始」開始。", "Press Start to begin."),
    # streamlit-webrtc's own words (its `translations`; coach/dashboard/live_page.py webrtc_translations), each
    # shown in both languages, the page's first; what it cannot word is said beside it (live_browser_component)
    "rtc_start": ("開始", "Start"),
    "rtc_stop": ("停止", "Stop"),
    "rtc_select_device": ("選擇裝置", "Select device"),
    "rtc_media_api_not_available": (
        "這個瀏覽器在這裡不能用攝影機（網頁須以 https 或在本機 localhost 開啟）",
        "The browser offers no camera here (the page must be opened over https, or on localhost)",
    ),
    "rtc_device_ask_permission": ("請允許這個網頁使用攝影機", "Please allow this page to use the camera"),
    "rtc_device_not_available": ("攝影機無法使用", "Camera not available"),
    "rtc_device_access_denied": ("攝影機被拒絕使用", "Camera access denied"),
    "rtc_turn_camera_on": ("打開攝影機", "Turn the camera on"),
    "rtc_turn_camera_off": ("關閉攝影機", "Turn the camera off"),
    "rtc_mute_microphone": ("麥克風靜音", "Mute the microphone"),
    "rtc_unmute_microphone": ("取消麥克風靜音", "Unmute the microphone"),
    "rtc_select_camera": ("選擇攝影機", "Select the camera"),
    "rtc_select_microphone": ("選擇麥克風", "Select the microphone"),
    "live_browser_component": (
        "攝影機框是 streamlit-webrtc 元件，有幾句只有英文：「Connection is taking longer than expected」是這台裝置連不到"
        "本機（手機須與本機在同一網路）；錯誤名稱（如 NotAllowedError）和括號裡的說明來自瀏覽器：請在網址列允許使用"
        "攝影機，再按「開始」。",
        "The camera box is the streamlit-webrtc component, and a few of its lines are English only: 'Connection is "
        "taking longer than expected' means this device cannot reach the dashboard's computer (a phone must be on "
        "the same network); an error's name (such as NotAllowedError) and the words in brackets come from the "
        "browser: allow the camera in the address bar, then press Start again.",
    ),
    # no picture arriving from a started source (coach/live/board.py NO_PICTURE_S): what to check, by source
    "live_no_picture_camera": (
        "攝影機 {source} 沒有傳來畫面：請確認已允許使用攝影機、攝影機已接上，且沒有其他程式正在使用它。",
        "No picture is arriving from camera {source}: check the camera permission, that it is plugged in, "
        "and that no other app is using it.",
    ),
    "live_no_picture_browser": (
        "瀏覽器攝影機沒有傳來畫面：請確認瀏覽器已允許使用攝影機，且沒有其他程式正在使用它。",
        "No picture is arriving from the browser's camera: check that the browser is allowed to use the camera "
        "and that no other app is using it.",
    ),
    "live_no_picture_file": (
        "影片 {source} 沒有傳來畫面：請確認檔案存在、能播放，且不是空的或損壞的。",
        "No picture is arriving from the file {source}: check that it exists, plays, and is not empty or damaged.",
    ),
    "live_no_picture_stream": (
        "串流 {source} 沒有傳來畫面：請確認網址正確，且串流正在播出。",
        "No picture is arriving from the stream {source}: check the address and that the stream is on the air.",
    ),
    # camera check (its findings are machine text: coach/wording/text.py)
    "check_title": ("攝影機檢查", "Camera check"),
    "check_intro": (
        "開始前先站在射位、面向攝影機，檢查全身是否入鏡、方向、距離與光線。",
        "Before a session: stand at your shooting position facing the camera and check framing, view, "
        "distance and light.",
    ),
    "check_run": ("檢查攝影機", "Check the camera"),
    "check_need_frames": (
        "還沒有瀏覽器的畫面：先按「開始」，站好幾秒再檢查。",
        "No frames from the browser yet: press Start, stand still a few seconds, then check.",
    ),
    "mark_ok": ("通過", "OK"),
    "mark_warn": ("注意", "Check"),
    "mark_fail": ("不合格", "Fail"),
    "check_ok": ("設定良好", "Set-up is good"),
    "check_warn": ("可以用，但有地方可改善", "Usable, with things to improve"),
    "check_fail": ("需要調整才能準確判斷", "Needs fixing before the rules can be judged"),
    "check_view": ("視角：{view}；{n}/{total} 幀看到人", "View: {view}; person in {n} of {total} frames"),
    "check_framing": ("入鏡", "Framing"),
    "check_room": ("拉弓空間", "Room to draw"),
    "check_distance": ("距離", "Distance"),
    "check_light": ("光線", "Light"),
    "check_judgeable": ("此視角可判斷的規則（{n}）", "Rules judged from this view ({n})"),
    "check_not_judgeable": ("此視角不能判斷的規則（{n}）", "Rules not judged from this view ({n})"),
    # access (coach/dashboard/access.py)
    "login_title": ("射經教練：請登入", "射經 Coach: sign in"),
    "login_intro": (
        "這個儀表板在區域網路上分享；請輸入啟動時顯示的通行碼或權杖。",
        "This dashboard is shared on the network; enter the passcode or the token shown when it started.",
    ),
    "login_passcode": ("通行碼或權杖", "Passcode or token"),
    "login_enter": ("進入", "Enter"),
    "login_wrong": ("通行碼不對。", "That is not the passcode."),
    "upload_keep": ("分析後保留上傳的影片", "Keep the uploaded video after the analysis"),
    # keeping the store tidy (coach/dashboard/tidy_panel.py)
    "tidy_session_title": ("管理此場（移至他人／刪除）", "Manage this session (move / delete)"),
    "tidy_move_to": ("移至射手", "Move to archer"),
    "tidy_move": ("移過去", "Move"),
    "tidy_moved": ("第 {id} 場已移至 {archer}。", "Session {id} moved to {archer}."),
    "tidy_delete_sure": (
        "我確定要刪去第 {id} 場（{archer}，{shots} 箭）及其一切紀錄",
        "Yes, delete session {id} ({archer}, {shots} shots) and everything recorded in it",
    ),
    "tidy_delete": ("刪去此場", "Delete session"),
    "tidy_deleted": ("第 {id} 場已刪去。", "Session {id} deleted."),
    "tidy_archer_title": ("管理射手（改名／合併）", "Manage archer (rename / merge)"),
    "tidy_new_name": ("新名字", "New name"),
    "tidy_rename": ("改名", "Rename"),
    "tidy_renamed": ("{old} 已改名為 {new}。", "{old} is now {new}."),
    "tidy_merge_into": ("併入射手", "Merge into archer"),
    "tidy_merge_sure": (
        "我確定要把 {src} 的各場移給 {dst}，並刪去 {src}",
        "Yes, move every session of {src} to {dst} and remove {src}",
    ),
    "tidy_merge": ("合併", "Merge"),
    "tidy_merged": ("{src} 的 {n} 場已併入 {dst}。", "{n} session(s) of {src} merged into {dst}."),
    "tidy_err_no_archer": ("沒有射手「{name}」。", "There is no archer {name}."),
    "tidy_err_no_session": ("沒有第 {id} 場。", "There is no session {id}."),
    "tidy_err_same_video": (
        "{archer} 已有同一段影片（第 {sessions} 場）：請先刪去其一。",
        "{archer} already has the same video (session {sessions}): delete one of them first.",
    ),
    "tidy_err_empty_name": ("名字不可空白。", "A name cannot be empty."),
    "tidy_err_name_taken": (
        "已有射手「{name}」：請改用合併。",
        "There is already an archer {name}: merge the two instead.",
    ),
    "tidy_err_same_archer": ("兩者是同一位射手。", "These are the same archer."),
    **MACHINE_TEXT,
}


def t(key: str, lang: str = "zh", **fmt) -> str:
    zh, en = TEXT[key]
    s = en if lang == "en" else zh
    return s.format(**fmt) if fmt else s


def both(key: str, first: str = "zh", **fmt) -> str:
    """Both languages, `first` first, for places that show them together (a line that must reach whoever reads)."""
    second = "en" if first == "zh" else "zh"
    return f"{t(key, first, **fmt)} · {t(key, second, **fmt)}"
