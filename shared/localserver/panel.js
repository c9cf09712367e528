// The side panel and the browse view: a community as the records route
// reads it (docs/contract.md#serve-records), with, for a cited one, the
// claims and excerpts the query's map text held.

// summaryBody is a report's text without the "# Title" line GraphRAG's
// reports open with: the panel shows the title above it already.
function summaryBody(summary) {
  return summary.replace(/^(?:[ \t]*#{1,6}[ \t][^\n]*\n)+\s*/, "");
}

function list(id, items, render, none) {
  const ul = $(id);
  ul.replaceChildren();
  items.forEach((x) => ul.append(render(x)));
  if (!items.length) ul.append(el("li", none, "muted"));
}

function more(id, omitted, what) {
  if (omitted) $(id).append(el("li", "and " + omitted + " more " + what, "muted"));
}

function claimItem(cl) {
  const li = el("li");
  li.append(el("strong", cl.subject + (cl.object ? " → " + cl.object : "")), document.createTextNode(": " + cl.description));
  return li;
}

// An excerpt names the text unit it was cut from and its document by
// title, the ids in full (the panel wraps them).
function renderExcerpts(excerpts, truncated) {
  const ex = $("community-excerpts");
  ex.replaceChildren();
  excerpts.forEach((x) => {
    const from = ["text unit " + (x.textUnitId || x.id)];
    if (x.documentTitle) from.push(x.documentTitle);
    else if (x.documentId) from.push("document " + x.documentId);
    ex.append(el("div", from.join(" · "), "muted"), el("blockquote", x.text));
  });
  if (!excerpts.length) ex.append(el("p", "none", "muted"));
  if (truncated) ex.append(el("p", "the query recorded only the first of this community's sources", "muted"));
}

// renderPanel shows community rec (the records route's); claims and
// excerpts are the cited ones when a citation opened it.
function renderPanel(rec, claims, excerpts, truncated) {
  $("community-title").textContent = rec.title || rec.id;
  const meta = [rec.id, "level " + rec.level];
  if (rec.parent) meta.push("in " + (rec.parent.title || rec.parent.id));
  if (rec.children && rec.children.length) meta.push(rec.children.length + " sub-communities");
  $("community-meta").textContent = meta.join(" · ");
  $("community-summary").textContent = summaryBody(rec.summary);
  list("community-claims", claims, claimItem, "none in this community's map text");
  renderExcerpts(excerpts, truncated);
  const omitted = rec.omitted || {};
  list("community-documents", rec.documents || [], (d) => el("li", d.title ? d.title + " (" + d.id + ")" : d.id), "none recorded");
  list("community-entities", rec.entities || [], (e) => {
    const li = el("li");
    li.append(el("strong", e.title + (e.type ? " (" + e.type + ")" : "")));
    if (e.description) li.append(document.createTextNode(": " + e.description));
    return li;
  }, "none in the index");
  more("community-entities", omitted.entities, "entities");
  list("community-relationships", rec.relationships || [], (r) => {
    const li = el("li");
    li.append(el("strong", r.source + " → " + r.target));
    if (r.description) li.append(document.createTextNode(": " + r.description));
    return li;
  }, "none in the index");
  more("community-relationships", omitted.relationships, "relationships");
  show("community-empty", false);
  show("community", true);
}

// panelLimit bounds each list of a community the panel shows.
const panelLimit = 50;

async function readRecord(id) {
  const r = await call("GET", "/namespaces/" + ns() + "/records/" + encodeURIComponent(id) + "?kind=community&limit=" + panelLimit);
  if (r.status !== 200) { fail(apiError(r)); return null; }
  return r.json.community;
}

async function openCommunity(id, button) {
  document.querySelectorAll("button.cite.open").forEach((b) => b.classList.remove("open"));
  button.classList.add("open");
  const r = await call("GET", "/namespaces/" + ns() + "/communities/" + encodeURIComponent(id) +
    "?queryId=" + encodeURIComponent(state.queryId));
  if (r.status !== 200) { fail(apiError(r)); return; }
  const c = r.json;
  const rec = (await readRecord(id)) || { id: c.id, title: c.title, level: c.level, summary: c.summary };
  renderPanel(rec, c.claims, c.excerpts, c.truncated);
}

async function openReport(id) {
  const rec = await readRecord(id);
  if (rec) renderPanel(rec, rec.claims, rec.excerpts, false);
}

// renderBrowse lists the namespace's reports by level, each one a button
// that opens it in the panel.
function renderBrowse() {
  const box = $("browse-levels");
  box.replaceChildren();
  const levels = state.levels || [];
  const total = levels.reduce((n, l) => n + l.reports.length, 0);
  $("browse-line").textContent = total + " reports in " + levels.length + " levels";
  for (const l of levels) {
    const details = el("details");
    details.open = levels.length <= 2 || l.level === levels[0].level;
    details.append(el("summary", "level " + l.level + " · " + l.reports.length + " reports"));
    const ul = el("ul");
    for (const rep of l.reports) {
      const b = el("button", rep.title || rep.id, "report");
      b.type = "button";
      b.dataset.id = rep.id;
      b.title = rep.id;
      b.addEventListener("click", () => openReport(rep.id));
      const li = el("li");
      li.append(b);
      ul.append(li);
    }
    details.append(ul);
    box.append(details);
  }
}

async function toggleBrowse() {
  const on = $("browse").hidden;
  show("browse", on);
  if (on) {
    if (!state.levels) await loadReports();
    renderBrowse();
  }
}

showModels();
loadReports();
$("namespace").addEventListener("change", loadReports);
$("dynamic").addEventListener("change", () => { $("rating-threshold").disabled = !$("dynamic").checked; });
$("browse-button").addEventListener("click", toggleBrowse);
$("ask").addEventListener("submit", ask);
$("plan-button").addEventListener("click", () => { resetRun(); plan(); });
$("cancel-button").addEventListener("click", cancel);
