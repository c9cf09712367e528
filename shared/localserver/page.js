"use strict";
// Everything the page shows of an answer, a summary or a claim is model or
// index text: it goes in as text nodes (textContent), never as markup.
const $ = (id) => document.getElementById(id);
const state = { queryId: "", location: "", timer: 0, stream: null, attempt: 0, final: false };
$("namespace").value = document.body.dataset.namespace || "default";

function ns() { return encodeURIComponent($("namespace").value.trim()); }

function show(id, on) { $(id).hidden = !on; }

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function fail(what) {
  $("error").textContent = what;
  show("error", true);
}

// call sends every request but a GET as application/json, body or not:
// serve refuses any other state-changing request, since a page on another
// origin could send it without the browser asking serve first.
async function call(method, path, body) {
  const init = { method, headers: {} };
  if (method !== "GET") init.headers["Content-Type"] = "application/json";
  if (body !== undefined) init.body = JSON.stringify(body);
  const resp = await fetch(path, init);
  let json = null;
  try { json = await resp.json(); } catch (e) { json = null; }
  return { status: resp.status, json };
}

function apiError(r) {
  if (r.json && r.json.error) return r.json.error + ": " + r.json.message;
  return "HTTP " + r.status;
}

// The models serve runs, as its flags named them.
function showModels() {
  const m = document.body.dataset.mapModel, r = document.body.dataset.reduceModel;
  $("models").textContent = m === r ? "model: " + m : "map model: " + m + " · reduce model: " + r;
}

// graphragLevel is the request fields of GraphRAG's --community-level n:
// level n plus the leaves of coarser levels (docs/contract.md#selection).
function graphragLevel(n) { return { communityLevel: "graphrag:" + n }; }

// loadReports reads the namespace's reports by level: the level select
// offers the levels that exist, and the browse view lists them.
async function loadReports() {
  const r = await call("GET", "/namespaces/" + ns() + "/reports");
  state.levels = r.status === 200 ? r.json.levels : [];
  const select = $("level");
  const kept = select.value;
  select.replaceChildren(new Option("default", ""), new Option("leaf: every leaf", "leaf"),
    new Option("auto: the finest that fits", "auto"));
  const ours = document.createElement("optgroup");
  ours.label = "exactly this level";
  const theirs = document.createElement("optgroup");
  theirs.label = "GraphRAG: this level and coarser leaves";
  for (const l of state.levels) {
    ours.append(new Option(l.level + " (" + l.reports.length + " reports)", String(l.level)));
    theirs.append(new Option("community level " + l.level, "graphrag:" + l.level));
  }
  select.append(ours, theirs);
  select.value = [...select.options].some((o) => o.value === kept) ? kept : "";
  if (!$("browse").hidden) renderBrowse();
}

// request is the body of a POST: the same JSON the API takes.
function request() {
  const body = { query: $("query").value };
  const rt = $("response-type").value.trim();
  if (rt) body.responseType = rt;
  const level = $("level").value;
  if (level.startsWith("graphrag:")) Object.assign(body, graphragLevel(Number(level.slice(9))));
  else if (/^[0-9]+$/.test(level)) body.communityLevel = Number(level);
  else if (level) body.communityLevel = level;
  if ($("dynamic").checked) {
    body.selection = "dynamic";
    const t = $("rating-threshold").value.trim();
    if (t) body.ratingThreshold = Number(t);
  }
  const mode = $("reduce-mode").value;
  if (mode) body.reduceMode = mode;
  return body;
}

function renderPlan(p) {
  const parts = [p.summaryCount + " summaries", p.batchCount + " map batches",
    "about " + p.estimatedMapInputTokens.toLocaleString() + " map input tokens",
    "at most " + p.maxModelCalls + " model calls (ceiling " + p.modelCallCeiling + ")"];
  if (p.costUsd !== undefined) parts.push("at most ~$" + p.costUsd.toFixed(4));
  if (p.emptyNamespace) parts.push("the namespace holds no summaries");
  $("plan-line").textContent = parts.join(" · ");
  const rows = $("plan-batches");
  rows.replaceChildren();
  p.batches.forEach((b, i) => {
    const tr = el("tr");
    tr.append(el("td", String(i)), el("td", String(b.estimatedTokens)), el("td", b.communityIds.join(", ")));
    rows.append(tr);
  });
  show("plan", true);
}

async function plan() {
  const r = await call("POST", "/namespaces/" + ns() + "/plans", request());
  if (r.status !== 200) { fail(apiError(r)); return false; }
  renderPlan(r.json);
  return true;
}

function closeStream() {
  if (state.stream) state.stream.close();
  state.stream = null;
  show("writing", false);
  $("answer").classList.remove("streaming");
}

function resetRun() {
  clearTimeout(state.timer);
  closeStream();
  state.final = false;
  state.attempt = 0;
  show("error", false);
  show("result", false);
  show("community", false);
  show("community-empty", true);
}

// openStream shows the final answer while the model writes it, from the
// query's event stream (docs/contract.md#answer-stream); the result, once
// the run ends, replaces it with the answer as the server validated it.
function openStream(location) {
  const es = new EventSource(location + "/events");
  state.stream = es;
  es.addEventListener("answer", (ev) => {
    if (state.final || state.stream !== es) return;
    const a = JSON.parse(ev.data);
    const box = $("answer");
    if (a.attempt !== state.attempt || a.offset === 0) {
      state.attempt = a.attempt;
      box.replaceChildren();
    }
    box.append(document.createTextNode(a.text));
    box.classList.add("streaming");
    $("stats").textContent = "";
    show("coverage", false);
    show("writing", true);
    show("result", true);
  });
  es.addEventListener("end", () => { if (state.stream === es) closeStream(); });
  // A stream that cannot open (another server, a run of another process)
  // leaves the answer to the result.
  es.onerror = () => { if (state.stream === es && es.readyState === EventSource.CLOSED) closeStream(); };
}

async function ask(ev) {
  ev.preventDefault();
  resetRun();
  $("ask-button").disabled = true;
  try {
    if (!(await plan())) return;
    const r = await call("POST", "/namespaces/" + ns() + "/queries", request());
    if (r.status !== 202 && r.status !== 200) { fail(apiError(r)); return; }
    state.queryId = r.json.queryId;
    state.location = r.json.location;
    $("run-status").textContent = "running " + state.queryId;
    show("run", true);
    show("cancel-button", true);
    if (r.json.status === "running") openStream(state.location);
    await poll();
  } finally {
    $("ask-button").disabled = false;
  }
}

async function poll() {
  const r = await call("GET", state.location);
  if (r.status !== 200) { fail(apiError(r)); return; }
  const res = r.json;
  if (res.status === "running") {
    renderProgress(res.progress && res.progress.map);
    state.timer = setTimeout(poll, 400);
    return;
  }
  closeStream();
  show("cancel-button", false);
  show("progress", false);
  $("progress-text").textContent = "";
  $("run-status").textContent = statusLine(res);
  if (res.error) fail(res.error);
  if (res.answer !== undefined) renderResult(res);
}

// statusLine is the run's status and id and, as run's status line, the
// reduce rounds when there were more than the final call
// (docs/contract.md#reduce-rounds).
function statusLine(res) {
  const reduce = (res.diagnostics || {}).reduce || {};
  let line = res.status + " · " + res.queryId;
  if (reduce.rounds > 1) line += " · " + reduce.rounds + " reduce rounds";
  return line;
}

function renderProgress(m) {
  if (!m) { $("progress-text").textContent = "planning…"; return; }
  const bar = $("progress");
  bar.max = m.total;
  bar.value = m.done + m.failed;
  show("progress", true);
  let text = "map " + m.done + "/" + m.total;
  if (m.failed) text += ", " + m.failed + " failed";
  if (m.total && m.done + m.failed === m.total) text += "; reducing";
  $("progress-text").textContent = text;
}

async function cancel() {
  const r = await call("DELETE", state.location);
  if (r.status === 405) { fail("this server cannot cancel a query"); return; }
  if (r.status >= 300) fail(apiError(r));
}

// renderAnswer shows text with the marks the server read in it
// (citationMarks, docs/contract.md#result-reading): their offsets count the
// answer's UTF-8 bytes. Only ids the result lists as citations become
// links, so the server alone decides what an answer cites.
function renderAnswer(box, text, marks, cited) {
  const bytes = new TextEncoder().encode(text);
  const decoder = new TextDecoder();
  const part = (from, to) => decoder.decode(bytes.subarray(from, to));
  box.replaceChildren();
  let last = 0;
  for (const m of marks) {
    box.append(document.createTextNode(part(last, m.start)));
    // The mark keeps its text exactly; only the ids in it become buttons.
    const mark = el("span", undefined, "mark");
    let at = m.start;
    for (const id of m.ids) {
      mark.append(part(at, id.start));
      if (cited.has(id.id)) {
        const b = el("button", id.id, "cite");
        b.type = "button";
        b.dataset.id = id.id;
        b.addEventListener("click", () => openCommunity(id.id, b));
        mark.append(b);
      } else {
        mark.append(part(id.start, id.end));
      }
      at = id.end;
    }
    mark.append(part(at, m.end));
    box.append(mark);
    last = m.end;
  }
  box.append(document.createTextNode(part(last, bytes.length)));
}

function renderResult(res) {
  state.final = true;
  const cited = new Set((res.citations || []).map((c) => c.communityId));
  renderAnswer($("answer"), res.answer, res.citationMarks || [], cited);
  const d = res.diagnostics || {};
  // The line `run` prints, as the server words it (coverageLine).
  if (res.coverageLine) {
    $("coverage").textContent = res.coverageLine;
    show("coverage", true);
  } else {
    show("coverage", false);
  }
  const stats = [d.summaryCount + " summaries", d.batchCount + " batches", d.modelCalls + " model calls",
    "tokens in " + d.inputTokens + " out " + d.outputTokens, "seed " + d.shuffleSeed];
  if (res.failedMapBatches) stats.push(res.failedMapBatches + " failed batches");
  if (d.map && d.map.cacheHits) stats.push(d.map.cacheHits + " map answers from cache");
  // What the run paid for, a cancelled one's too (docs/contract.md#cancel).
  if (d.cost) stats.push("cost ~$" + (d.cost.mapUsd + d.cost.reduceUsd).toFixed(4));
  $("stats").textContent = stats.join(" · ");
  show("result", true);
}
