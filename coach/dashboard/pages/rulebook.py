"""Rulebook: every rule of the pack with its classical text, meaning, cue, phases, views and thresholds (the
rules the landmarks cannot judge are listed and marked); the coach can adjust an archer's thresholds, which are
saved as profile overrides and used by that archer's next analysis."""

import streamlit as st

from coach.dashboard import ui
from coach.dashboard.data import (
    archer_names,
    check_override,
    effective_rule,
    measure_label,
    profile_of,
    profile_with,
    rule_name,
    threshold_values,
    with_override,
)
from coach.wording.machine import view_name
from posture_rules.pack import load_pack
from posture_rules.thresholds import THRESHOLD_KEYS

PACK_DEFAULT = load_pack

PACK = "\x00pack"


def thresholds_text(rule) -> str:
    v = threshold_values(rule)
    return " · ".join(f"{ui.tr('th_' + k)} {v[k]:g}" for k in THRESHOLD_KEYS if k in v) or "—"


def rule_card(rule, eff, archer_name) -> None:
    lang = ui.lang()
    title = f"{rule.name_zh} · {rule.name_en} — {rule.section}"
    if not rule.observable:
        title += f"  〔{ui.tr('not_observable')}〕"
    with st.expander(title):
        st.markdown(f"### {rule.quote}")
        st.markdown(f"**{ui.tr('meaning')}**：{rule.meaning_zh}  \n*{rule.meaning_en}*")
        st.markdown(f"**{ui.tr('cue')}**：{rule.cue_zh} / *{rule.cue_en}*")
        if not rule.observable:
            st.warning(f"{ui.tr('not_observable')} — {ui.tr('needs')}: {rule.needs}")
            return
        st.markdown(
            f"**{ui.tr('metric')}** {measure_label(rule.metric, PACK_DEFAULT(), lang)} · **{ui.tr('phases')}** "
            + ", ".join(ui.tr("phase_" + p) if ("phase_" + p) in _PHASE_KEYS else p for p in rule.phases)
            + f" · **{ui.tr('views')}** {', '.join(view_name(v, lang) for v in rule.views)}"
            + f" · **{ui.tr('severity')}** {ui.tr('sev_' + rule.severity)}"
        )
        line = f"**{ui.tr('thresholds')}** {thresholds_text(rule)}"
        if archer_name and eff is not None and threshold_values(eff) != threshold_values(rule):
            line += f"  \n{ui.tr('effective_for', archer=archer_name)}: {thresholds_text(eff)}"
        if rule.clean_reads is not None:
            c = rule.clean_reads
            reads = " … ".join("" if v is None else f"{v:g}" for v in (c.below, c.above)).strip()
            line += f"  \n{ui.tr('clean_reads', reads=reads)}"
        st.markdown(line)
        if lang == "en" and rule.source_note:
            st.caption(rule.source_note)


_PHASE_KEYS = {
    f"phase_{p}" for p in ("setup", "raise", "draw", "full_draw", "hold", "release", "follow_through", "session")
}


def adjust_panel(settings, pack, names: list[str]) -> None:
    st.subheader(ui.tr("adjust"))
    st.caption(ui.tr("adjust_intro"))
    if not names:
        st.info(ui.tr("no_archers"))
        return
    c1, c2 = st.columns(2)
    name = c1.selectbox(ui.tr("archer"), names, key="adj_archer")
    observable = [r for r in pack.rules if r.observable]
    lang = ui.lang()
    rid = c2.selectbox(
        ui.tr("rule"),
        [r.id for r in observable],
        format_func=lambda i: rule_name(pack, i, lang),
        key=f"adj_rule.{lang}",  # a fresh widget per language (see ui.choice)
    )
    with settings.store() as store:
        archer = store.archer(name)
    profile = profile_of(archer)
    eff = effective_rule(pack, profile, rid)
    current = threshold_values(eff)
    if rid in archer.overrides:
        st.caption(f"✎ {ui.tr('overridden')}")
    cols = st.columns(len(current) or 1)
    values = {}
    for col, k in zip(cols, [k for k in THRESHOLD_KEYS if k in current]):
        values[k] = col.number_input(
            ui.tr("th_" + k), value=float(current[k]), step=0.5, format="%.2f", key=f"adj_{name}_{rid}_{k}"
        )
    b1, b2 = st.columns([1, 4])
    if b1.button(ui.tr("save"), type="primary", key="adj_save"):
        problem = check_override(values, ui.lang())
        if problem:
            st.error(problem, icon=":material/error:")
        else:
            overrides = with_override(archer.overrides, rid, values)
            profile_with(profile, overrides).apply(pack)  # the analysis will accept it
            with settings.store() as store:
                store.ensure_archer(name, overrides=overrides)
            st.success(ui.tr("override_saved", archer=name, rule=rule_name(pack, rid, lang)))
    if b2.button(ui.tr("reset"), key="adj_reset"):
        with settings.store() as store:
            store.ensure_archer(name, overrides=with_override(archer.overrides, rid, None))
        for k in THRESHOLD_KEYS:
            st.session_state.pop(f"adj_{name}_{rid}_{k}", None)
        st.success(ui.tr("override_reset", rule=rule_name(pack, rid, lang)))
        st.rerun()


def render() -> None:
    settings = ui.settings()
    st.title(f"{ui.tr('page_rulebook')}")
    pack = load_pack()
    st.caption(f"{pack.title} — {pack.version}")
    st.write(ui.tr("rulebook_intro"))
    with settings.store() as store:
        names = archer_names(store)
        view_as = st.selectbox(
            ui.tr("archer"),
            [PACK, *names],
            format_func=lambda n: "—" if n == PACK else n,
            key="rb_archer",
        )
        archer = store.archer(view_as) if view_as != PACK else None
    effective = profile_of(archer).apply(pack)
    observable = [r for r in pack.rules if r.observable]
    st.caption(
        f"{len(pack.rules)} · {len(observable)} ✓ · {len(pack.rules) - len(observable)} 〔{ui.tr('not_observable')}〕"
    )
    for rule in pack.rules:
        rule_card(rule, effective.by_id.get(rule.id), archer.name if archer else None)
    adjust_panel(settings, pack, names)


render()
