"""The wording, in Chinese and English, of what the machine writes in English: why a rule was not judged, session
notes, a video's errors, the camera check's findings, a live run's status. `coach/wording/machine.py` recognises
each stored English form and words it from here; the dashboard (`coach/dashboard/i18n.py` takes this table into
its own), the reports and the terminal all read it, so this package imports nothing of theirs."""

from __future__ import annotations

# key -> (中文, English). Placeholders use str.format names.
MACHINE_TEXT: dict[str, tuple[str, str]] = {
    # why a rule could not be judged (the engine's reasons, coach/engine.py) and the views it names
    "why_view": ("從{view}視角無法判斷", "not judged from the {view} view"),
    "why_phase": ("這箭沒有到這個階段", "the shot did not reach this phase"),
    "why_setup": ("沒有預備姿勢可比較", "no set-up pose to compare with"),
    "why_setup_bent": (
        "預備時身體不正或未站定（彎身、移動，或鏡頭傾斜過大），無從比較",
        "the set-up pose was not upright and still (bent, moving, or the camera far off level)",
    ),
    "why_hidden": ("關節被遮住、出鏡或透視縮短", "landmarks hidden, out of frame, or foreshortened"),
    "why_unmeasurable": ("這箭量不到", "not measurable in this shot"),
    "why_along_depth": ("箭指向鏡頭深處，角度失真", "the arrow pointed into the depth: angles distorted"),
    "why_arrow_unseen": (
        "滿弓時弓臂幾乎看不到，看不出箭的方向",
        "the bow arm was hardly seen at full draw: the arrow's way unknown",
    ),
    "why_too_few_shots": ("量到的箭太少，無法比較", "too few shots measured to compare"),
    "view_face-on": ("正面", "face-on"),
    "view_down-line": ("沿箭道", "down-the-line"),
    "view_other": ("斜側", "oblique"),
    "view_high": ("高處", "high"),
    "why_phase_uncertain": ("階段不確定（{marks}），這條規則不判斷", "phase uncertain ({marks}): not judged"),
    "view_any": ("任何視角", "any view"),
    # a fault of a rule the landmarks judge with low confidence (the terminal, reports and review page mark it "(?)")
    "hint_note": (
        "（?）姿勢點判斷信心低的規則：其病只作提示，不作定論",
        "(?) a rule the landmarks judge with low confidence: take its fault as a hint, not a verdict",
    ),
    # the phase marks an uncertain phase names (coach/results.py uncertain_marks; also the corrections panel)
    "mark_raise_start": ("舉弓", "raise"),
    "mark_draw_start": ("開弓起點", "draw start"),
    "mark_anchor": ("靠位", "anchor"),
    "mark_release": ("發矢", "release"),
    # how sure a shot's phases are (machine.certainty_text: the review page's shot tab, the terminal, the reports)
    "ev_draw_hand": ("拉弦手", "draw hand"),
    "ev_draw_elbow": ("拉弦肘", "draw elbow"),
    "ev_bow_arm": ("弓臂", "bow arm"),
    "ev_span": ("兩手距", "span"),
    "ev_sound": ("弦聲", "sound"),
    "sure_release": ("發矢把握 {conf}", "Release confidence {conf}"),
    "sure_release_seen": ("發矢把握 {conf}（{signals}）", "Release confidence {conf} ({signals})"),
    "sure_uncertain": ("不確定：{marks}，相關規則不判斷", "Uncertain: {marks}; the rules resting on it are not judged"),
    "sure_anchor_range": ("於第 {a}–{b} 幀之間滿弓", "Full draw reached between frames {a} and {b}"),
    # how a release was timed, where not by the pose alone (coach/results.py release_remarks)
    "rel_by_sound": ("以弦聲定時", "timed by sound"),
    "rel_heard_only": ("只聞弦聲，未見發矢：只以弦聲定時", "heard, not seen: timed by the string's sound alone"),
    "rel_flight": ("{t} 秒後聽到箭中靶", "arrow heard hitting {t} s later"),
    "rel_hand_stayed": (
        "後手停在靠位，發矢可能更早而沒看到",
        "the hand stayed at the anchor, so the release may have come earlier, unseen",
    ),
    # a shot's phases (the dashboard's timeline, the terminal summary, the reports) and a time measured from an
    # uncertain mark (coach/results.py unsure_times)
    "phase_raise": ("舉弓", "raise"),
    "phase_draw": ("開弓", "draw"),
    "phase_full_draw": ("滿弓", "full draw"),
    "phase_hold": ("審固", "hold"),
    "phase_follow_through": ("收勢", "follow-through"),
    "unsure_time": ("?：這段時間量自不確定的階段時點", "?: a time measured from an uncertain phase mark"),
    # verdicts and their columns (the dashboard's tables, the terminal summary's verdict lines)
    "v_fault": ("病", "fault"),
    "v_pass": ("合", "pass"),
    "v_not_assessable": ("不可判", "n/a"),
    "col_value": ("量值", "value"),
    "col_limits": ("合格範圍", "ok if"),
    "col_frames": ("幀", "frames"),
    # where a fault to work on first showed (the dashboard, the terminal summary)
    "focus_session": ("全場", "the whole session"),
    "focus_shots": ("{k}／{n} 箭", "{k} of {n} shots"),
    # the archer (the dashboard's choice, the terminal summary's header)
    "hand_right": ("右手拉弦", "right-handed"),
    "hand_left": ("左手拉弦", "left-handed"),
    "hand_unknown": ("慣用手不明", "handedness unknown"),
    "hand_from_auto": ("自動偵測", "detected"),
    "hand_from_profile": ("射手設定", "from the profile"),
    "hand_from_unknown": ("沒偵測到", "not detected"),
    "hand_from_picture": ("依畫面，與射手設定的手相反", "from the picture, not the profile's"),
    "view_unknown": ("不明", "unknown"),
    # the terminal summary (coach/summary.py format_report): a label reads "English 中文", a line "English · 中文"
    "sum_video": (
        "{n} 幀，每秒 {fps} 幀，{w}×{h}；{person} 幀有人",
        "{n} frames at {fps} fps, {w}×{h}; person in {person} frames",
    ),
    "sum_archer": (
        "射手：{hand}（{source}）；視角：{view}（信心 {conf}）；規則：{pack}",
        "archer: {hand} ({source}); view: {view} (confidence {conf}); rules: {pack}",
    ),
    "sum_note": ("附註", "note"),
    "sum_work_on_first": ("先練", "Work on first"),
    "sum_work_on": ("先練", "work on"),
    "sum_shot": ("第{n}箭", "Shot {n}"),
    "sum_release_at": ("第 {frame} 幀發矢", "release at frame {frame}"),
    "sum_release_at_s": ("第 {frame} 幀發矢（{t} 秒）", "release at frame {frame} ({t} s)"),
    "sum_release_not_seen": ("沒看到發矢", "release not seen"),
    "sum_incomplete": ("未完成：沒看到發矢", "incomplete: release not seen"),
    "sum_phases": ("階段", "phases"),
    "sum_consistency": ("間若一", "Session consistency"),
    # the session's consistency measures (coach/metrics/session.py), as the terminal summary names them
    "cm_draw_length_cv": ("引滿長度變異係數", "draw length CV"),
    "cm_anchor_spread": ("靠位分散", "anchor spread"),
    "cm_draw_time_mean": ("平均引弓時間", "draw time mean"),
    "cm_hold_time_mean": ("平均持滿時間", "hold time mean"),
    "cm_sd": ("標準差", "SD"),
    "cm_release_interval_mean": ("平均發矢間隔", "release interval mean"),
    "cm_release_interval_cv": ("發矢間隔變異係數", "release interval CV"),
    # what can be wrong with a video (coach/capture.py, coach/pipeline.py, coach/dashboard/jobs.py)
    "err_no_file": ("找不到這個檔案", "no such file"),
    "err_folder": ("這是資料夾，不是影片檔", "is a folder, not a video file"),
    "err_empty": ("檔案是空的（0 位元組）", "is empty (0 bytes)"),
    "err_not_video": (
        "無法當作影片開啟（不是影片檔，或 OpenCV 沒有它的編碼器）",
        "cannot be opened as a video (not a video file, or a codec OpenCV lacks)",
    ),
    "err_no_frames": ("沒有可解碼的畫面（損壞或截斷）", "has no decodable video frames (corrupt or truncated)"),
    "err_no_person": ("{n} 幀裡都找不到人", "no person found in any of its {n} frames"),
    # session notes (coach/analyzer.py, coach/pipeline.py, coach/sampling.py)
    "note_no_person": ("影片中找不到人。", "No person found in the video."),
    "note_no_shots": ("沒有找到任何一箭。", "No shots found."),
    "note_unseen_draw": (
        "{t0}–{t1} 秒：弓臂舉起 {dur} 秒，卻沒看到滿弓（拉弦手被遮住或判錯），那裡的一箭沒有分析。",
        "{t0}–{t1} s: the bow arm was up for {dur} s but no full draw was seen (the draw hand hidden or "
        "misplaced by the pose model); a shot there was not analysed.",
    ),
    "note_heard_shot": (
        "{t0}–{t1} 秒：沒看到拉弦手，但在 {t} 秒聽到弦聲：算作第 {n} 箭，以弦聲定發矢時刻；其他階段不明，姿勢不判斷。",
        "{t0}–{t1} s: the draw hand was not seen, but the string was heard at {t} s: counted as shot {n}, timed by "
        "its sound; its other phases are unknown and its form was not judged.",
    ),
    "note_heard_lost": (
        "{t0}–{t1} 秒：滿弓後畫面失去射手，但在 {t} 秒聽到弦聲：算作第 {n} 箭，以弦聲定發矢時刻。",
        "{t0}–{t1} s: full draw, then the picture lost the archer, but the string was heard at {t} s: counted as "
        "shot {n}, its release timed by its sound.",
    ),
    "note_truncated": (
        "影片在第 {n} / {total} 幀就結束了（截斷或損壞），只分析了能讀的部分。",
        "The video ended after {n} of {total} frames (truncated or corrupt); what was readable was analysed.",
    ),
    "note_sampled": (
        "自適應分析：姿勢模型只看了 {frames} 幀中的 {runs} 幀；{n} 段沒有人開弓的時間（共 {sparse} 幀）每秒取樣 {fps} 幀，"
        "每一箭前後都逐幀分析。要逐幀分析全部請用 --full-rate。",
        "Adaptive analysis: the pose model looked at {runs} of {frames} frames; {n} stretches with nobody drawing "
        "({sparse} frames) were sampled at {fps} fps, every frame around each shot was analysed. --full-rate "
        "analyses every frame.",
    ),
    "note_let_down": (
        "{t0}–{t1} 秒：滿弓後放下弓，沒有發矢（退弓），不當作一箭。",
        "{t0}–{t1} s: a let-down — full draw, then the bow came down without a release; not judged as a shot.",
    ),
    "note_video_ended": (
        "{t0}–{t1} 秒：滿弓直到影片結束（或剪走），沒看到發矢，不當作一箭。",
        "{t0}–{t1} s: full draw until the video ended (or cut away), no release seen; not judged as a shot.",
    ),
    "note_view_lost": (
        "{t0}–{t1} 秒：滿弓後，手一動畫面就換了（剪接或鏡頭轉開），看不出箭是否射出，不當作一箭。",
        "{t0}–{t1} s: full draw, then the picture changed as the hand moved (an edit's cut or the camera swung "
        "away): whether an arrow left cannot be told; not judged as a shot.",
    ),
    "note_along_depth": (
        "第 {n} 箭：箭指向鏡頭深處（滿弓時弓臂只見其長的 {pct}%）：畫面平面上量的規則不判斷，開弓起點與靠位不確定；"
        "請與箭垂直拍攝。",
        "Shot {n}: the arrow pointed into the depth (the bow arm seen at {pct} % of its length at full draw): the "
        "rules measured in the picture's plane were not judged, and its draw start and anchor are uncertain; film "
        "square to the arrow to have them judged.",
    ),
    "note_arrow_unseen": (
        "第 {n} 箭：滿弓時弓臂幾乎看不到，看不出箭是否與鏡頭垂直：畫面平面上量的規則不判斷；請讓弓手留在畫面中。",
        "Shot {n}: the bow arm was hardly seen at full draw, so whether the arrow lay square to the camera cannot be "
        "told: the rules measured in the picture's plane were not judged; keep the bow hand in the picture to have "
        "them judged.",
    ),
    "note_first_seen_drawn": (
        "第 {n} 箭：第一次看到射手時已經滿弓（第 {a} 幀）：舉弓與開弓沒有拍到，開弓的規則與持滿時間不判斷。",
        "Shot {n}: the archer was already at full draw when first seen (frame {a}): the raise and the draw were not "
        "seen, and neither the rules of the draw nor the hold's length were judged.",
    ),
    "note_shoulders_misread": (
        "第 {n} 箭：姿勢模型在持弓時讀到的肩寬，發矢後一直不再出現，軀幹長度卻不變（模型讀錯了射手）：靠位與發矢不確定，"
        "依它們計時的規則不判斷。",
        "Shot {n}: the pose read the archer's shoulders in the hold at a width the follow-through never shows, the "
        "torso unchanged (the pose misread the archer): its anchor and release are uncertain, and the rules timed "
        "from them were not judged.",
    ),
    "note_hand_misread": (
        "第 {n} 箭：姿勢模型在持弓時把後手讀錯（讀到前手旁），發矢時才跳回原位：靠位與發矢不確定，依它們計時的規則不判斷。",
        "Shot {n}: the pose misread the draw hand in the hold (read at the bow hand, then snapped back as the arrow "
        "left): its anchor and release are uncertain, and the rules timed from them were not judged.",
    ),
    "note_camera_roll": (
        "鏡頭約偏斜 {deg}°（由射者每次舉弓前站立的身軀看出）：兩手是否平、收勢時後手的高低，都已扣除這個傾斜來判斷。",
        "The camera was held about {deg}° off level (as the archer's standing trunk shows before each raise): the "
        "hands' level and the follow-through hand's height were read with that roll taken out.",
    ),
    "note_other_hand": (
        "第 {n} 箭：讀成以{side}手開弓，與這一節的其他箭不同（姿勢模型可能把畫面讀成了左右顛倒）：這一箭是按{side}手開弓判斷的。",
        "Shot {n}: read as drawn with the {side} hand, unlike the session's other shots (the pose model may have read "
        "its picture mirrored): it was judged as a {side}-handed draw.",
    ),
    "note_other_hand_only": (
        "射手設定為{hand}手開弓，卻沒有看到{hand}手的滿弓，只看到{other}手的（第一次在第 {a} 幀，{ta} 秒）："
        "畫面可能左右顛倒（手機前鏡頭），或拍的是另一位射手；請改以{other}手分析。",
        "No full draw with the {hand} hand, which the archer's profile gives, but with the {other} hand (first at "
        "frame {a}, {ta} s): the picture may be mirrored (a phone's front camera) or show another archer; analyse it "
        "with the {other} hand.",
    ),
    "note_mirrored": (
        "每一次滿弓都是以{other}手開弓，而射手設定為{hand}手：畫面左右顛倒（手機前鏡頭），或拍的是另一位射手；"
        "各箭已按{other}手開弓判斷。",
        "Every full draw was drawn with the {other} hand, though the archer's profile gives the {hand} hand: the "
        "picture is mirrored (a phone's front camera) or shows another archer; its shots were judged as drawn with "
        "the {other} hand.",
    ),
    "note_hidden_hand": (
        "射手的{side}手在看得到人的畫面中有 {pct}% 被遮住（從背後拍攝，或手在畫面外）：可能有射出的箭沒被看到；"
        "從正面拍攝才能找到每一箭。",
        "The archer's {side} hand was hidden in {pct} % of the frames they were seen in (a view from behind, or the "
        "hand out of the picture): a shot may have gone unseen; film from the front to have every shot found.",
    ),
    "note_incomplete": (
        "分析未完成：停在第 {n} 箭之後。",
        "Incomplete session: the analysis stopped after {n} completed shot(s).",
    ),
    # the camera check's findings (coach/live/check.py)
    "chk_nobody": (
        "畫面裡沒有人：站到攝影機看得到全身的地方",
        "no one in the picture: stand where the camera sees all of you",
    ),
    "chk_whole_body": ("全身都在畫面內", "whole body in the picture"),
    "chk_edge": (
        "太靠近畫面{side}緣：滿弓時弓臂會出鏡；往中間移或退後",
        "too near the {side} edge: the bow arm will leave the picture at full draw; move towards the middle or step back",
    ),
    "side_left": ("左", "left"),
    "side_right": ("右", "right"),
    "chk_room": ("滿弓時弓臂有足夠空間", "room for the bow arm at full draw"),
    "chk_far": ("離攝影機太遠：靠近一點", "too far from the camera: come closer"),
    "chk_close": ("離攝影機太近：退後一點", "too close to the camera: step back"),
    "chk_distance": ("距離合適（肩寬佔畫面寬的 {pct}）", "good distance (shoulders {pct} of the width)"),
    "chk_face_on": (
        "正面對著攝影機：能判斷最多規則的視角",
        "facing the camera (face-on): the view the most rules are judged from",
    ),
    "chk_down_line": (
        "側面對著攝影機（沿箭道）：能判斷的規則較少；正對攝影機可判斷全部",
        "side-on to the camera (down-line): fewer rules can be judged; face the camera for all",
    ),
    "chk_angle": (
        "斜對攝影機：請正對攝影機，或完全側身",
        "turned at an angle: face the camera square, or stand side-on",
    ),
    "chk_dark": ("太暗：請加光", "too dark: add light"),
    "chk_bright": ("太亮或逆光：背對窗戶", "too bright or back-lit: turn away from windows"),
    "chk_flat": ("畫面平淡、對比低：射手身上多些光", "flat, low-contrast picture: more light on the archer"),
    "chk_light_ok": ("光線良好", "light is fine"),
    "chk_needs_view": ("需要{views}視角（此攝影機：{view}）", "needs a {views} view (this camera: {view})"),
    "chk_not_observable": ("身體關節點觀測不到", "not observable from body landmarks"),
    # a live run's status, and what stops or refuses a live source (coach/live/feeder.py, coach/live/cli.py,
    # coach/live/session.py open_source, coach/capture.py, coach/dashboard/access.py)
    "src_camera": ("攝影機 {n}", "camera {n}"),
    "status_retrying": (
        "{name}：攝影機中斷（讀不到畫面），重新連接中（第 {n}/{of} 次）…",
        "{name}: camera lost (read failed); retrying ({n}/{of}) …",
    ),
    "status_reconnected": (
        "{name}：已重新連接（中斷了 {s} 秒）",
        "{name}: reconnected after {s} s",
    ),
    "status_watching": (
        "正在看 {name}（{w}×{h}）；按 q 或 Ctrl-C 停止",
        "watching {name} ({w}×{h}); q or Ctrl-C to stop",
    ),
    "err_camera_lost": ("攝影機中斷：重試 {n} 次仍沒有畫面", "camera lost: no frames after {n} retries"),
    "err_no_camera": ("攝影機 {n} 不存在或無法開啟", "camera {n} does not exist or cannot be opened"),
    "err_cannot_open": ("無法開啟（{why}）", "cannot be opened ({why})"),
    "err_no_drop_camera": (
        "--no-drop 只能用於影片檔：攝影機或串流不能等分析",
        "--no-drop needs a video file: a camera or stream cannot wait for the analysis",
    ),
    "err_url_not_allowed": (
        "這裡不允許使用網址來源（管理者可把它列在 COACH_LIVE_SOURCES）",
        "a URL source is not allowed here (the operator can list it in COACH_LIVE_SOURCES)",
    ),
    "err_not_allowed": (
        "這裡不允許：只能用攝影機、sample_videos/ 與上傳的影片（見 COACH_LIVE_SOURCES）",
        "is not allowed here: only cameras, sample_videos/ and uploads (see COACH_LIVE_SOURCES)",
    ),
}


def t(key: str, lang: str = "zh", **fmt) -> str:
    zh, en = MACHINE_TEXT[key]
    s = en if lang == "en" else zh
    return s.format(**fmt) if fmt else s


def label(key: str, **fmt) -> str:
    """A label in English, then in Chinese: "phases 階段" (the terminal summary, the reports)."""
    return f"{t(key, 'en', **fmt)} {t(key, 'zh', **fmt)}"


def word(key: str, lang: str, fallback: str) -> str:
    """`key` worded in `lang`; `fallback` (the stored word, as written) where the table has no such key."""
    return t(key, lang) if key in MACHINE_TEXT else fallback
