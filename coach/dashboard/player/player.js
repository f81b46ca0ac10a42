// The frame player (st.components.v2): one clip (the session review) or two clips side by side (Compare).
//
// Frame accuracy: a frame k is shown over [k/fps, (k+1)/fps), so a seek goes to (k + 0.5)/fps, inside the frame,
// never on its edge; the frame on screen is read back from requestVideoFrameCallback's mediaTime (the frame the
// compositor presented), falling back to the seek target where that callback is missing.
//
// Streamlit calls this module's default function again on every rerun whose data changed, without running the
// previous cleanup (it runs only on unmount), and keeps the component's DOM: so the player is built once per
// parent element and every later call only hands it the new data.
//
// One file (~500 lines) because Streamlit loads a component's JS as a single inline ES module: Clip (a video
// and its frame clock), Player (controls, ticks, synchronising, reporting) and the canvas drawing.

const SPEEDS = [0.125, 0.25, 0.5, 1];
const SPEED_LABELS = { 0.125: "1/8×", 0.25: "1/4×", 0.5: "1/2×", 1: "1×" };
const REPORT_MS = 250; // the frame goes back to Python once the player rests this long (each report is a rerun)

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(cls, text, title) {
  const b = el("button", "cp-btn " + cls, text);
  b.type = "button";
  b.title = title || "";
  b.setAttribute("aria-label", title || text);
  return b;
}

function fmtTime(s) {
  return s.toFixed(3) + " s";
}

// ---- one video and its frame clock -------------------------------------------------------------------------
class Clip {
  constructor(host, name) {
    this.box = el("div", "cp-clip");
    this.box.dataset.clip = name;
    this.title = el("div", "cp-title");
    this.stage = el("div", "cp-stage");
    this.video = el("video", "cp-video");
    this.video.playsInline = true;
    this.video.preload = "auto";
    this.canvas = el("canvas", "cp-canvas");
    this.stage.append(this.video, this.canvas);
    this.readout = el("div", "cp-readout");
    this.readout.dataset.testid = "cp-frame-" + name;
    this.box.append(this.title, this.stage, this.readout);
    host.append(this.box);
    this.fps = 30;
    this.n = 0;
    this.url = null;
    this.shown = 0; // the frame on screen
    this.target = null; // the frame a seek is on its way to
    this.listeners = [];
    this.onframe = () => {};
    this.frameLabel = "frame";
    const v = this.video;
    this.rvfc = typeof v.requestVideoFrameCallback === "function";
    if (this.rvfc) {
      const tick = (_now, meta) => {
        this.present(Math.round(meta.mediaTime * this.fps));
        this.handle = v.requestVideoFrameCallback(tick);
      };
      this.handle = v.requestVideoFrameCallback(tick);
    }
    this.on(v, "seeked", () => {
      // a paused seek presents its frame through the callback above; if it never comes, trust the target
      const want = this.target;
      setTimeout(() => {
        if (this.target === want && want !== null) this.present(want);
      }, this.rvfc ? 200 : 0);
    });
    this.on(v, "timeupdate", () => {
      if (!this.rvfc && !v.paused) this.present(Math.floor(v.currentTime * this.fps + 1e-3));
    });
    this.on(v, "loadedmetadata", () => {
      if (this.restore !== null && this.restore !== undefined) {
        const f = this.restore;
        this.restore = null;
        this.seek(f);
      }
    });
  }

  on(target, ev, fn) {
    target.addEventListener(ev, fn);
    this.listeners.push([target, ev, fn]);
  }

  setSource(url, fps, n) {
    this.fps = fps > 0 ? fps : 30;
    this.n = Math.max(1, n | 0);
    if (url !== this.url) {
      const keep = this.url ? this.shown : null;
      this.url = url;
      this.restore = keep;
      this.video.src = url;
      this.video.load();
    }
    this.show();
  }

  get ready() {
    return this.video.readyState >= 1;
  }

  clamp(f) {
    return Math.max(0, Math.min(this.n - 1, Math.round(f)));
  }

  // the frame a step starts from: the one a pending seek goes to, else the one on screen
  get base() {
    return this.target !== null ? this.target : this.shown;
  }

  seek(f) {
    f = this.clamp(f);
    this.target = f;
    if (!this.ready) {
      this.restore = f;
      return f;
    }
    this.video.currentTime = (f + 0.5) / this.fps;
    return f;
  }

  present(f) {
    if (this.video.seeking) return; // the old frame, still on screen while a seek runs
    this.target = null;
    this.shown = this.clamp(f);
    this.show();
    this.onframe(this.shown);
  }

  show() {
    const f = this.shown;
    this.readout.dataset.frame = String(f);
    this.readout.textContent = `${this.frameLabel} ${f} / ${this.n - 1} · ${fmtTime(f / this.fps)}`;
  }

  destroy() {
    if (this.rvfc && this.handle !== undefined) this.video.cancelVideoFrameCallback(this.handle);
    for (const [t, ev, fn] of this.listeners) t.removeEventListener(ev, fn);
    this.video.pause();
    this.video.removeAttribute("src");
    this.video.load();
  }
}

// ---- the player ------------------------------------------------------------------------------------------
class Player {
  constructor(root, setStateValue) {
    this.root = root;
    this.setStateValue = setStateValue;
    this.listeners = [];
    this.data = null;
    this.seekN = null;
    this.reported = null;
    this.timer = null;
    this.loopSpan = null;

    this.wrap = el("div", "cp");
    this.wrap.tabIndex = 0;
    this.clipsRow = el("div", "cp-clips");
    this.bar = el("div", "cp-bar");
    this.ticks = el("div", "cp-ticks");
    this.scrub = el("input", "cp-scrub");
    this.scrub.type = "range";
    this.scrub.min = "0";
    this.scrub.step = "1";
    this.bar.append(this.ticks, this.scrub);
    this.controls = el("div", "cp-controls");
    this.back = button("cp-back", "◀ 1");
    this.play = button("cp-play", "▶");
    this.fwd = button("cp-fwd", "1 ▶");
    this.speed = el("select", "cp-speed");
    for (const s of SPEEDS) {
      const o = el("option", "", SPEED_LABELS[s]);
      o.value = String(s);
      this.speed.append(o);
    }
    this.speed.value = "1";
    this.loopBox = el("label", "cp-check");
    this.loop = el("input", "cp-loop");
    this.loop.type = "checkbox";
    this.loopText = el("span", "", "");
    this.loopBox.append(this.loop, this.loopText);
    this.ghostBox = el("label", "cp-check cp-ghost-box");
    this.ghost = el("input", "cp-ghost");
    this.ghost.type = "checkbox";
    this.ghostText = el("span", "", "");
    this.ghostBox.append(this.ghost, this.ghostText);
    this.speedLabel = el("span", "cp-speed-label", "");
    this.controls.append(this.back, this.play, this.fwd, this.speedLabel, this.speed, this.loopBox, this.ghostBox);
    this.hint = el("div", "cp-hint", "");
    this.wrap.append(this.clipsRow, this.bar, this.controls, this.hint);
    root.append(this.wrap);
    this.clips = [];

    this.on(this.play, "click", () => this.toggle());
    this.on(this.back, "click", () => this.step(-1));
    this.on(this.fwd, "click", () => this.step(1));
    this.on(this.speed, "change", () => this.applySpeed());
    this.on(this.loop, "change", () => {
      this.loopSpan = this.loop.checked ? this.spanAt(this.lead.shown) : null;
    });
    this.on(this.ghost, "change", () => this.drawGhost());
    this.on(this.scrub, "input", () => {
      this.pause();
      this.seekLead(Number(this.scrub.value));
    });
    this.on(this.wrap, "keydown", (e) => {
      if (e.target && e.target.tagName === "SELECT") return;
      if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
        e.preventDefault();
        this.step(e.key === "ArrowLeft" ? -1 : 1);
      } else if (e.key === " " || e.key === "k") {
        e.preventDefault();
        this.toggle();
      }
    });
    this.on(this.wrap, "pointerdown", (e) => {
      if (e.target && e.target.tagName !== "SELECT" && e.target.tagName !== "INPUT") this.wrap.focus();
    });
  }

  on(target, ev, fn) {
    target.addEventListener(ev, fn);
    this.listeners.push([target, ev, fn]);
  }

  get lead() {
    return this.clips[0];
  }

  get pair() {
    return this.clips.length === 2;
  }

  update(data, setStateValue) {
    this.setStateValue = setStateValue;
    this.data = data;
    const L = data.labels || {};
    const specs = data.clips || [];
    while (this.clips.length < specs.length) {
      const c = new Clip(this.clipsRow, this.clips.length ? "b" : "a");
      const k = this.clips.length;
      c.onframe = (f) => this.onFrame(k, f);
      this.on(c.video, "ended", () => this.onEnded(k));
      this.on(c.video, "pause", () => this.syncButtons());
      this.on(c.video, "play", () => this.syncButtons());
      this.clips.push(c);
    }
    specs.forEach((s, k) => {
      const c = this.clips[k];
      c.frameLabel = L.frame || "frame";
      c.title.textContent = s.title || "";
      c.title.style.display = s.title ? "" : "none";
      c.setSource(s.url, s.fps, s.n_frames);
    });
    this.clipsRow.classList.toggle("cp-pair", this.pair);
    this.back.title = L.back || "";
    this.fwd.title = L.fwd || "";
    this.play.title = L.play || "";
    this.speedLabel.textContent = L.speed || "";
    this.loopText.textContent = L.loop || "";
    this.ghostText.textContent = L.ghost || "";
    this.ghostBox.style.display = this.pair && data.ghost ? "" : "none";
    this.hint.textContent = L.keys || "";
    this.scrub.setAttribute("aria-label", L.scrub || "");
    this.scrub.max = String(Math.max(0, this.lead.n - 1));
    this.drawTicks();
    this.ownAt = data.skeleton ? new Map(data.skeleton.frames.map((p) => [p.frame, p])) : null;
    this.drawGhost();
    // a "jump to" from Python: applied once per request number, whatever else reruns
    const seek = data.seek;
    if (seek && seek.n !== this.seekN) {
      this.seekN = seek.n;
      this.pause();
      this.seekLead(seek.frame);
    } else if (this.pair && this.seekN === null) {
      this.seekN = -1;
      this.seekLead(specs[0].sync ?? 0);
    }
    this.syncButtons();
  }

  drawTicks() {
    this.ticks.replaceChildren();
    const n = Math.max(1, this.lead.n - 1);
    const put = (tk, row, offset) => {
      const f = tk.frame + offset;
      if (f < 0 || f > n) return;
      const d = el("button", `cp-tick cp-${tk.kind} cp-row${row}`);
      d.type = "button";
      d.style.left = `${(100 * f) / n}%`;
      if (tk.kind === "fault" && tk.end !== null && tk.end !== undefined) {
        d.style.width = `max(3px, ${(100 * Math.max(0, tk.end - tk.frame)) / n}%)`;
      }
      d.title = tk.label;
      d.dataset.frame = String(f);
      d.dataset.kind = tk.kind;
      d.addEventListener("click", () => {
        this.pause();
        this.seekLead(f);
      });
      this.ticks.append(d);
    };
    const specs = (this.data && this.data.clips) || [];
    (specs[0]?.ticks || []).forEach((tk) => put(tk, 0, 0));
    if (this.pair && specs[1]) {
      // the second clip's marks on the first clip's axis, through the synchronising mark
      const off = (specs[0].sync ?? 0) - (specs[1].sync ?? 0);
      (specs[1].ticks || []).forEach((tk) => put({ ...tk, end: tk.end }, 1, off));
    }
  }

  // ---- moving --------------------------------------------------------------------------------------------
  partnerFrame(f) {
    const [a, b] = this.data.clips;
    const rel = (f - (a.sync ?? 0)) / this.lead.fps;
    return Math.round((b.sync ?? 0) + rel * this.clips[1].fps);
  }

  seekLead(f) {
    const got = this.lead.seek(f);
    if (this.pair) this.clips[1].seek(this.partnerFrame(got));
    this.scrub.value = String(got);
    this.scheduleReport();
    return got;
  }

  step(d) {
    this.pause();
    this.seekLead(this.lead.base + d);
  }

  toggle() {
    if (this.lead.video.paused) this.start();
    else this.pause();
  }

  start() {
    this.applySpeed();
    if (this.loop.checked) this.loopSpan = this.spanAt(this.lead.shown);
    for (const c of this.clips) {
      c.target = null;
      const p = c.video.play();
      if (p && p.catch) {
        p.catch(() => {
          c.video.muted = true; // a browser that blocks sound without a gesture still plays muted
          c.video.play().catch(() => {});
        });
      }
    }
  }

  pause() {
    for (const c of this.clips) if (!c.video.paused) c.video.pause();
    this.scheduleReport();
  }

  applySpeed() {
    const r = Number(this.speed.value) || 1;
    for (const c of this.clips) c.video.playbackRate = r;
  }

  spanAt(f) {
    const spans = (this.data.clips[0].spans || []).slice().sort((x, y) => x.start - y.start);
    if (!spans.length) return { start: 0, end: this.lead.n - 1 };
    return spans.find((s) => f >= s.start && f <= s.end) || spans.find((s) => s.start > f) || spans[spans.length - 1];
  }

  onFrame(k, f) {
    if (k === 0) {
      this.scrub.value = String(f);
      const v = this.lead.video;
      if (!v.paused) {
        if (this.loop.checked && this.loopSpan && (f > this.loopSpan.end || f < this.loopSpan.start)) {
          this.lead.seek(this.loopSpan.start);
          if (this.pair) this.clips[1].seek(this.partnerFrame(this.loopSpan.start));
        } else if (this.pair) {
          const b = this.clips[1];
          const want = b.clamp(this.partnerFrame(f));
          if (Math.abs(b.shown - want) > 1 && !b.video.seeking) b.seek(want);
          if (b.video.paused && want < b.n - 1) b.video.play().catch(() => {});
        }
      } else {
        this.scheduleReport();
      }
      this.drawGhost();
    }
  }

  onEnded(k) {
    if (k !== 0) return;
    if (this.loop.checked && this.loopSpan) {
      this.seekLead(this.loopSpan.start);
      this.start();
    } else {
      this.pause();
    }
  }

  syncButtons() {
    const paused = !this.lead || this.lead.video.paused;
    this.play.textContent = paused ? "▶" : "❚❚";
    const L = (this.data && this.data.labels) || {};
    this.play.title = paused ? L.play || "" : L.pause || "";
  }

  // ---- back to Python --------------------------------------------------------------------------------------
  scheduleReport() {
    if (!this.data || !this.data.report) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const c = this.lead;
      if (!c.video.paused || c.video.seeking || c.target !== null) return this.scheduleReport();
      if (c.shown !== this.reported) {
        this.reported = c.shown;
        this.setStateValue("frame", c.shown);
      }
    }, REPORT_MS);
  }

  // ---- skeletons on the canvas: the clip's own (from the kept pose track, over the original video) and, side
  // by side, the second shot's as a ghost over the first -----------------------------------------------------
  drawGhost() {
    const c = this.lead;
    const cv = c.canvas;
    const ctx = cv.getContext("2d");
    const w = c.video.clientWidth;
    const h = c.video.clientHeight;
    if (cv.width !== w || cv.height !== h) {
      cv.width = w;
      cv.height = h;
    }
    ctx.clearRect(0, 0, w, h);
    cv.dataset.ghostFrame = "";
    cv.dataset.skeletonFrame = "";
    const own = this.data.skeleton;
    if (own && this.ownAt) {
      const pose = this.ownAt.get(c.shown);
      if (pose) {
        drawPose(ctx, c, pose, own.edges, "rgba(255, 200, 40, 0.9)");
        cv.dataset.skeletonFrame = String(pose.frame);
      }
    }
    const g = this.data.ghost;
    if (this.pair && g && this.ghost.checked) {
      const pose = nearestPose(g.frames, c.shown, g.hold || 0);
      if (pose) {
        drawPose(ctx, c, pose, g.edges, "rgba(0, 230, 255, 0.85)");
        cv.dataset.ghostFrame = String(pose.frame);
      }
    }
  }

  destroy() {
    clearTimeout(this.timer);
    for (const [t, ev, fn] of this.listeners) t.removeEventListener(ev, fn);
    for (const c of this.clips) c.destroy();
    this.wrap.remove();
  }
}

// points are fractions of the video's width and height; the video is letterboxed in its element (contain)
function drawPose(ctx, clip, pose, edges, colour) {
  const w = clip.video.clientWidth;
  const h = clip.video.clientHeight;
  const vw = clip.video.videoWidth || 1;
  const vh = clip.video.videoHeight || 1;
  const s = Math.min(w / vw, h / vh);
  const ox = (w - vw * s) / 2;
  const oy = (h - vh * s) / 2;
  const px = (p) => [ox + p[0] * vw * s, oy + p[1] * vh * s];
  ctx.lineWidth = 3;
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  for (const [i, j] of edges) {
    const a = pose.points[i];
    const b = pose.points[j];
    if (!a || !b) continue;
    const [x0, y0] = px(a);
    const [x1, y1] = px(b);
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
  }
  for (const p of pose.points) {
    if (!p) continue;
    const [x, y] = px(p);
    ctx.beginPath();
    ctx.arc(x, y, 3, 0, 2 * Math.PI);
    ctx.fill();
  }
}

function nearestPose(frames, f, hold) {
  let best = null;
  for (const p of frames) {
    const d = Math.abs(p.frame - f);
    if (d <= hold && (best === null || d < Math.abs(best.frame - f))) best = p;
  }
  return best;
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".cp-root") || parentElement;
  let player = root.__coachPlayer;
  if (!player) {
    player = new Player(root, setStateValue);
    root.__coachPlayer = player;
  }
  player.update(data || {}, setStateValue);
  return () => {
    player.destroy();
    delete root.__coachPlayer;
  };
}
