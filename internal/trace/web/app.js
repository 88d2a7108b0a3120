// godwit trace page: draws /api/trace and polls it every 2 s. Every value
// from the session goes into the page as text (textContent), never as
// markup: tool output is data.
"use strict";

const POLL_MS = 2000;
const SVG = "http://www.w3.org/2000/svg";
let lastTag = "";
let firstDraw = true;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) if (k) e.append(k);
  return e;
}

const num = (n) => (n || 0).toLocaleString("en-US");
const usd = (c) => "$" + (c || 0).toFixed(4);
const ref = (r) => (r ? "t" + r.turn + "s" + r.step : "–");
const plural = (n, one, many) => num(n) + " " + (n === 1 ? one : many);
const ms = (n) => (n >= 1000 ? (n / 1000).toFixed(2) + " s" : n + " ms");

// --- summary -------------------------------------------------------------

function card(label, value, note, cls) {
  return el("div", { class: "card " + (cls || "") },
    el("div", { class: "label", text: label }),
    el("div", { class: "value", text: value }),
    note ? el("div", { class: "note", text: note }) : null);
}

function drawSummary(r) {
  const t = r.tokens;
  const s = r.shell;
  const ts = r.tests;
  const ph = r.phases;
  const box = el("div", { class: "cards" },
    card("model calls", num(r.model_calls), r.model_errors ? r.model_errors + " failed" : r.retries ? r.retries + " retries" : ""),
    card("tool calls", num(r.tool_calls), (r.tool_errors ? r.tool_errors + " failed · " : "") +
      (r.tool_denied ? r.tool_denied + " denied · " : "") + (r.tool_cancelled ? r.tool_cancelled + " cancelled · " : "") +
      (r.parallel_steps ? r.parallel_steps + " parallel steps, most " + r.max_parallel + " at " + ref(r.max_parallel_at) : "no parallel steps")),
    card("tokens in", num(t.input), num(t.cache_read) + " read from cache"),
    card("tokens out", num(t.output), num(t.reasoning) + " reasoning · " + num(r.text_chars) + " text chars"),
    card("cost", usd(r.cost.total), (r.cost.by_model || []).map((m) => m.model + " " + usd(m.cost)).join(" · ") +
      (r.cost.unpriced ? " · " + r.cost.unpriced + " unpriced" : "")),
    card("re-reads", num((r.re_reads || []).length), plural((r.reads_after_write || []).length, "read", "reads") + " after own write",
      (r.re_reads || []).length ? "warn" : ""),
    card("shell runs", num(s.runs), s.failed + " failed · " + (s.stderr_ok || []).length + " exit 0 with stderr" +
      ((s.repeated || []).length ? " · " + s.repeated.length + " repeated" : ""), s.failed ? "warn" : ""),
    card("test runs", num(ts.runs), ts.failed + " failed · " + (ts.first_pass ? "first pass " + ref(ts.first_pass) +
      ", " + ts.after_first_pass + " after" : "never passed"), ts.first_pass ? "good" : ts.runs ? "warn" : ""),
    card("phases", ph.explore.calls + " / " + ph.to_green.calls + " / " + ph.after_green.calls,
      "explore / to green / after green calls · first write " + ref(ph.first_write) + " · green " + ref(ph.green)));
  if (r.verify.runs) {
    box.append(card("verify", r.verify.runs + (r.verify.runs === 1 ? " run" : " runs"), r.verify.failed + " failed · last exit " + r.verify.last_exit,
      r.verify.last_exit ? "warn" : "good"));
  }
  const notes = el("ul", { class: "findings" });
  for (const f of r.re_reads || []) notes.append(el("li", { text: "re-read " + f.path + " at " + ref(f.at) + " (read at " + ref(f.since) + ")" }));
  for (const f of r.reads_after_write || []) notes.append(el("li", { text: "read back " + f.path + " at " + ref(f.at) + " (written at " + ref(f.since) + ")" }));
  for (const x of s.stderr_ok || []) notes.append(el("li", { text: ref(x.at) + " " + x.command + " exited 0 with: " + x.line }));
  for (const x of s.repeated || []) notes.append(el("li", { text: "ran " + x.runs + "× (" + x.failed + " failed): " + x.command }));
  document.getElementById("summary").replaceChildren(box, notes.childElementCount ? notes : "");
}

// --- chart ---------------------------------------------------------------

function drawChart(turns) {
  const calls = [];
  for (const t of turns) {
    for (const s of t.steps) {
      s.calls.forEach((m, i) => calls.push({ id: "t" + t.seq + "s" + s.step + (m.purpose ? " " + m.purpose : ""), anchor: "t" + t.seq + "s" + s.step, m }));
    }
  }
  const box = document.getElementById("chart");
  if (!calls.length) {
    box.replaceChildren(el("p", { class: "empty", text: "no model calls yet" }));
    return;
  }
  const W = 900, H1 = 150, H2 = 60, gap = 18, left = 56, top = 8;
  const maxIn = Math.max(1, ...calls.map((c) => c.m.usage.input_tokens || 0));
  const maxOut = Math.max(1, ...calls.map((c) => c.m.usage.output_tokens || 0));
  const bw = (W - left) / calls.length;
  const root = svg("svg", { viewBox: `0 0 ${W} ${top + H1 + gap + H2 + 16}`, class: "chart", role: "img",
    "aria-label": "input and output tokens of each model call" });
  const axis = (y, text) => root.append(svg("text", { x: left - 6, y, class: "axis", "text-anchor": "end" }, document.createTextNode(text)));
  axis(top + 10, num(maxIn));
  axis(top + H1, "0");
  axis(top + H1 + gap + 10, num(maxOut));
  axis(top + H1 + gap + H2, "0");
  root.append(svg("text", { x: left, y: top + H1 + gap - 4, class: "axis" }, document.createTextNode("output")));
  root.append(svg("line", { x1: left, x2: W, y1: top + H1, y2: top + H1, class: "base" }));
  root.append(svg("line", { x1: left, x2: W, y1: top + H1 + gap + H2, y2: top + H1 + gap + H2, class: "base" }));
  calls.forEach((c, i) => {
    const u = c.m.usage;
    const x = left + i * bw + bw * 0.12, w = Math.max(1, bw * 0.76);
    const inH = ((u.input_tokens || 0) / maxIn) * H1;
    const cachedH = ((u.cache_read_tokens || 0) / maxIn) * H1;
    const outH = ((u.output_tokens || 0) / maxOut) * H2;
    const g = svg("g", { class: "bar", "data-call": c.id });
    g.append(svg("title", {}, document.createTextNode(`${c.id}: ${num(u.input_tokens)} in (${num(u.cache_read_tokens)} cached), ` +
      `${num(u.output_tokens)} out, ${ms(c.m.latency_ms)}, ${usd(c.m.cost)}`)));
    g.append(svg("rect", { x, width: w, y: top + H1 - inH, height: Math.max(0, inH - cachedH), class: "uncached" }));
    g.append(svg("rect", { x, width: w, y: top + H1 - cachedH, height: cachedH, class: "cached" }));
    g.append(svg("rect", { x, width: w, y: top + H1 + gap + H2 - outH, height: outH, class: "output" }));
    if (calls.length <= 40 || i % Math.ceil(calls.length / 40) === 0) {
      g.append(svg("text", { x: x + w / 2, y: top + H1 + gap + H2 + 12, class: "tick", "text-anchor": "middle" }, document.createTextNode(c.m.purpose ? "h" : c.anchor)));
    }
    g.addEventListener("click", () => {
      const target = document.getElementById(c.anchor);
      if (target) target.scrollIntoView({ behavior: "smooth", block: "start" });
    });
    root.append(g);
  });
  box.replaceChildren(root);
}

// --- timeline ------------------------------------------------------------

function pre(text, cls) {
  return el("pre", { class: cls || "", text: text });
}

function diffBlock(diff) {
  const p = el("pre", { class: "diff" });
  for (const line of diff.replace(/\n$/, "").split("\n")) {
    let cls = "";
    if (line.startsWith("+++") || line.startsWith("---")) cls = "file";
    else if (line.startsWith("@@")) cls = "hunk";
    else if (line.startsWith("+")) cls = "add";
    else if (line.startsWith("-")) cls = "del";
    p.append(el("span", { class: cls, text: line + "\n" }));
  }
  return p;
}

function toolBlock(turn, step, c) {
  let status = "ok", badge = "";
  if (c.is_error) { status = "err"; badge = c.code || "error"; }
  else if (c.exit_code !== undefined && c.exit_code !== null) { badge = "exit " + c.exit_code; if (c.exit_code !== 0) status = "err"; }
  const d = el("details", { class: "tool " + status, "data-key": "t" + turn + "s" + step + "/" + c.call_id });
  d.append(el("summary", {},
    el("span", { class: "mark", text: status === "ok" ? "✓" : "✗" }),
    el("span", { class: "name", text: c.name }),
    el("code", { class: "args", text: c.summary }),
    badge ? el("span", { class: "badge " + status, text: badge }) : null,
    el("span", { class: "dur", text: ms(c.duration_ms) })));
  if (c.args) d.append(el("div", { class: "label", text: "arguments" }), pre(JSON.stringify(c.args, null, 2)));
  if (c.diff) d.append(el("div", { class: "label", text: "diff" }), diffBlock(c.diff));
  d.append(el("div", { class: "label", text: "output" + (c.approval ? " · approval: " + c.approval : "") }),
    pre(c.output || "(no output)", "output"));
  return d;
}

function partsBlock(turn, step, m) {
  const parts = m.parts || [];
  const total = parts.reduce((a, p) => a + p.tokens, 0);
  const d = el("details", { class: "parts", "data-key": "t" + turn + "s" + step + "/parts" });
  d.append(el("summary", { text: "context: " + parts.length + " parts, " + num(m.request_bytes) + " bytes, " + num(total) + " tokens" }));
  const bar = el("div", { class: "partbar" });
  const table = el("table", {}, el("tr", {}, el("th", { text: "part" }), el("th", { text: "bytes" }), el("th", { text: "tokens" }), el("th", { text: "share" })));
  parts.forEach((p, i) => {
    const share = total ? (100 * p.tokens) / total : 0;
    const seg = el("span", { class: "seg c" + (i % 6), title: p.name + ": " + num(p.tokens) + " tokens" });
    seg.style.width = share + "%";
    bar.append(seg);
    table.append(el("tr", {}, el("td", {}, el("span", { class: "sw c" + (i % 6) }), p.name),
      el("td", { text: num(p.bytes) }), el("td", { text: num(p.tokens) }), el("td", { text: share.toFixed(1) + "%" })));
  });
  d.append(bar, table);
  return d;
}

function callHead(id, m) {
  const u = m.usage;
  const head = el("div", { class: "stephead" }, el("a", { href: "#" + id, class: "ref", text: id }));
  if (m.purpose) head.append(el("span", { class: "pill", text: m.purpose + " call" }));
  head.append(el("span", { text: m.provider + "/" + m.model }),
    el("span", { text: num(u.input_tokens) + " in (" + num(u.cache_read_tokens) + " cached)" }),
    el("span", { text: num(u.output_tokens) + " out" }),
    el("span", { text: ms(m.latency_ms) }),
    el("span", { text: usd(m.cost) }));
  if (m.retries) head.append(el("span", { class: "warn", text: m.retries + " retries" }));
  if (m.fallback) head.append(el("span", { class: "warn", text: "fell back to " + m.fallback }));
  return head;
}

function noteBlock(key, n) {
  const cls = "enote " + n.kind.replace(".", "-") + (n.failed ? " err" : "");
  if (!n.detail) return el("div", { class: cls, text: n.text });
  const d = el("details", { class: cls, "data-key": key });
  d.append(el("summary", { text: n.text }), pre(n.detail, "output"));
  return d;
}

function stepBlock(t, s) {
  const id = "t" + t.seq + "s" + s.step;
  const box = el("div", { class: "step", id });
  if (!s.calls.length) box.append(el("div", { class: "stephead" }, el("a", { href: "#" + id, class: "ref", text: id })));
  s.calls.forEach((m, i) => {
    box.append(callHead(id, m), partsBlock(t.seq, s.step + (i ? "." + i : ""), m));
    if (m.text && !m.purpose) box.append(el("div", { class: "text", text: m.text }));
    if (m.error) box.append(el("div", { class: "error", text: "model call failed: " + m.error }));
  });
  for (const c of s.tools) box.append(toolBlock(t.seq, s.step, c));
  (s.after || []).forEach((n, i) => box.append(noteBlock(id + "/note" + i, n)));
  return box;
}

function turnBlock(t) {
  const a = el("article", { class: "turn " + t.status, id: "t" + t.seq });
  a.append(el("h3", {}, el("span", { text: "Turn " + t.seq }), el("span", { class: "pill " + t.status, text: t.status }),
    el("span", { class: "dim", text: num(t.usage.input_tokens) + " in · " + num(t.usage.output_tokens) + " out · " + usd(t.cost) })));
  a.append(el("div", { class: "prompt" }, el("div", { class: "label", text: "user" }), el("div", { text: t.prompt })));
  (t.before || []).forEach((n, i) => a.append(noteBlock("t" + t.seq + "/before" + i, n)));
  for (const s of t.steps) a.append(stepBlock(t, s));
  for (const v of t.verify || []) {
    const ok = v.exit_code === 0;
    const d = el("details", { class: "tool verify " + (ok ? "ok" : "err"), "data-key": "t" + t.seq + "/verify" + v.round });
    d.append(el("summary", {}, el("span", { class: "mark", text: ok ? "✓" : "✗" }),
      el("span", { class: "name", text: "verify #" + v.round }), el("code", { class: "args", text: v.command }),
      el("span", { class: "badge " + (ok ? "ok" : "err"), text: "exit " + v.exit_code }), el("span", { class: "dur", text: ms(v.duration_ms) })));
    d.append(pre(v.output_tail || "(no output)", "output"));
    a.append(d);
  }
  if (t.error) a.append(el("div", { class: "error", text: "turn " + t.status + ": " + t.error }));
  return a;
}

function drawTimeline(turns) {
  const box = document.getElementById("timeline");
  const open = new Set([...box.querySelectorAll("details[open]")].map((d) => d.dataset.key));
  const kids = [];
  let segment = 0;
  for (const t of turns) {
    if (segment && t.segment !== segment) kids.push(el("div", { class: "segment", text: "segment " + t.segment + " (new context window, opened by a handoff)" }));
    segment = t.segment;
    kids.push(turnBlock(t));
  }
  if (!kids.length) kids.push(el("p", { class: "empty", text: "no turns yet" }));
  box.replaceChildren(...kids);
  const all = firstDraw && new URLSearchParams(location.search).get("open") === "all";
  for (const d of box.querySelectorAll("details")) if (all || open.has(d.dataset.key)) d.open = true;
  firstDraw = false;
}

function expandAll(open) {
  for (const d of document.querySelectorAll("#timeline details")) d.open = open;
}

// --- polling -------------------------------------------------------------

function draw(v) {
  const s = v.session;
  document.title = "godwit trace · " + (s.title || s.id);
  document.getElementById("title").textContent = s.title || "(untitled session)";
  document.getElementById("meta").textContent = s.id + " · " + s.model + " · " + s.workspace;
  drawSummary(v.report);
  drawChart(v.turns);
  drawTimeline(v.turns);
}

async function poll() {
  const status = document.getElementById("status");
  const started = Date.now();
  try {
    const res = await fetch("api/trace", { cache: "no-cache" });
    if (!res.ok) throw new Error(res.status + " " + (await res.text()));
    const tag = res.headers.get("ETag") || "";
    if (tag !== lastTag) {
      const v = await res.json();
      lastTag = tag;
      draw(v);
      status.dataset.live = v.live ? "1" : "0";
    }
    const isLive = status.dataset.live === "1";
    status.className = "status " + (isLive ? "live" : "done");
    status.textContent = (isLive ? "live" : "finished") + " · checked " + new Date().toLocaleTimeString();
  } catch (err) {
    status.className = "status down";
    status.textContent = "cannot reach godwit (" + err.message + "); retrying";
  }
  // A long session takes a while to load: never poll more than half the time.
  setTimeout(poll, Math.max(POLL_MS, 2 * (Date.now() - started)));
}

document.getElementById("expand").addEventListener("click", () => expandAll(true));
document.getElementById("collapse").addEventListener("click", () => expandAll(false));
poll();
