extension StudioScript {
    /// The query bar and its plan tree, the relationship diagram, the change timeline, the
    /// migration history, verify, the statistics charts, and the write mode's editor and import.
    static let views = #"""

// ---- query: rows, the plan as a tree, a parse error's column underlined ----
views.query = async main => {
  const input = el("input", { class: "predicate", id: "predicate", placeholder: "lastName == \"Bluth\" AND luckyNumber > 5 ORDER BY luckyNumber LIMIT 10" });
  const echo = el("div", { id: "predicate-echo" });
  const message = el("div", { id: "query-error", class: "error-text" });
  const plan = el("div", { id: "plan", class: "plan" });
  const rows = el("div", { id: "rows" });
  async function run() {
    echo.replaceChildren(); message.textContent = ""; plan.replaceChildren(); rows.replaceChildren();
    try {
      const result = await api("/api/entities/" + encodeURIComponent(state.entity) + "/query" + query({ predicate: input.value, limit: 100 }));
      plan.append(el("h3", { text: "plan" }), planTree(result.plan), el("details", {}, el("summary", { text: "as text" }), el("pre", { text: result.tree })));
      const columns = [];
      for (const row of result.rows) for (const c of Object.keys(row.record)) if (!columns.includes(c)) columns.push(c);
      rows.append(el("h3", { text: result.rows.length + " rows" }), table([{ title: "key", value: r => r.key }].concat(columns.map(c => ({ title: c, value: r => r.record[c] }))), result.rows));
    } catch (error) {
      message.textContent = error.message;
      const column = error.body && error.body.error ? error.body.error.column : undefined;
      if (column) {
        const text = input.value, at = Math.min(column - 1, text.length);
        echo.append(text.slice(0, at), el("span", { class: "at", id: "error-at", text: text.slice(at, at + 1) || " " }), text.slice(at + 1));
      }
    }
  }
  input.addEventListener("keydown", event => { if (event.key === "Enter") run(); });
  main.append(el("div", { class: "toolbar" }, entityPicker(() => {}), input, el("button", { id: "run", text: "run", on: { click: run } })), echo, message, plan, rows);
};
// The plan as `explain --analyze` draws it: the last step at the top, each step over the one it reads from.
function planTree(plan) {
  const root = el("ul", { class: "tree", id: "plan-tree" });
  let level = root;
  for (const step of (plan.steps || []).slice().reverse()) {
    const figures = ["estimated " + number(step.estimatedRows) + " rows"];
    if (step.actualRows !== undefined) figures.push("actual " + number(step.actualRows) + " rows");
    if (step.seconds !== undefined) figures.push((step.seconds * 1000).toFixed(3) + " ms");
    const inner = el("ul", {});
    level.append(el("li", { class: "plan-step" }, el("div", {}, el("strong", { text: step.operation }), " ", el("span", { text: cellText(step.detail) }),
      el("span", { class: "figures", text: figures.join(" · ") })), inner));
    level = inner;
  }
  return root;
}

// ---- relationships as a diagram ----
views.relationships = async main => {
  const data = await api("/api/relationships");
  const width = 760, height = Math.max(240, 120 * Math.ceil(data.entities.length / 3));
  const place = {};
  data.entities.forEach((name, i) => { place[name] = { x: 40 + (i % 3) * 250, y: 40 + Math.floor(i / 3) * 120 }; });
  const drawing = svg("svg", { id: "diagram", width, height, viewBox: "0 0 " + width + " " + height });
  drawing.append(svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto" },
    svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#3b4a66" }))));
  for (const r of data.relationships) {
    const a = place[r.entity], b = place[r.target];
    if (!a || !b) continue;
    drawing.append(svg("line", { x1: a.x + 80, y1: a.y + 40, x2: b.x + 80, y2: b.y, stroke: "#3b4a66", "marker-end": "url(#arrow)" }),
      svg("text", { x: (a.x + b.x) / 2 + 80, y: (a.y + b.y) / 2 + 16, text: r.name + (r.kind === "toMany" ? " [*]" : "") }));
  }
  for (const name of data.entities) {
    const p = place[name];
    drawing.append(svg("rect", { x: p.x, y: p.y, width: 160, height: 40, rx: 6, fill: "#fff", stroke: "#3b4a66" }),
      svg("text", { x: p.x + 80, y: p.y + 25, "text-anchor": "middle", text: name }));
  }
  main.append(el("h2", { text: "Relationships" }), drawing,
    table([{ title: "entity", value: r => r.entity }, { title: "relationship", value: r => r.name }, { title: "kind", value: r => r.kind },
           { title: "target", value: r => r.target }, { title: "key field", value: r => r.keyField }, { title: "inverse", value: r => r.inverse }], data.relationships));
};

// ---- the change feed as a timeline ----
views.changes = async main => {
  const list = el("ol", { class: "timeline", id: "timeline" });
  async function load() {
    const feed = await api("/api/changes" + query({ limit: 100 }));
    if (!feed.enabled) { list.replaceChildren(el("li", { text: "This store keeps no change log (strata changelog STORE --enable keeps one)." })); return; }
    list.replaceChildren(...feed.changes.slice().reverse().map(c => el("li", {},
      el("span", { class: "badge " + c.operation, text: c.operation }), el("span", { text: "#" + c.sequence + " " + c.time + " " + c.entity + " " + cellText(c.key) }))));
  }
  onCommit(() => { if (state.view === "changes") load().catch(error => showError(error.message)); });
  main.append(el("h2", { text: "Change feed" }), list);
  await load();
};

// ---- migration history, verify ----
views.migrations = async main => {
  const history = await api("/api/migrations");
  main.append(el("h2", { text: "Migration history" }), history.migrations.length
    ? table([{ title: "order", value: m => m.order, numeric: true }, { title: "date", value: m => m.date }, { title: "name", value: m => m.name }], history.migrations)
    : el("p", { text: "No migrations have run." }));
};
views.verify = async main => {
  const button = el("button", { id: "verify-run", text: "verify the store" });
  const report = el("div", { id: "verify-report" });
  button.addEventListener("click", async () => {
    report.textContent = "checking…";
    try {
      const result = await api("/api/verify");
      report.replaceChildren(el("p", { text: "data file: " + number(result.pages) + " pages of " + number(result.databases) + " databases: ok; "
        + (result.consistent ? "every record and index entry matches" : "problems found") }),
        table([{ title: "entity", value: e => e.entity }, { title: "records", value: e => e.recordsChecked, numeric: true },
               { title: "index entries", value: e => e.entriesExpected, numeric: true },
               { title: "result", value: e => e.problems.length ? e.problems.join("; ") : "ok" }], result.entities));
    } catch (error) { report.textContent = error.message; }
  });
  main.append(el("h2", { text: "Verify" }), button, report);
};

// ---- statistics as charts ----
function bars(id, items, unit) {
  const max = Math.max(1, ...items.map(i => i.value)), height = 28 * items.length + 10;
  return svg("svg", { id, width: 640, height }, items.map((item, i) => [
    svg("text", { x: 0, y: 28 * i + 20, text: item.label }),
    svg("rect", { x: 170, y: 28 * i + 6, height: 18, width: Math.max(1, 330 * item.value / max), fill: item.color || "#5b7bd5" }),
    svg("text", { x: 175 + 330 * item.value / max, y: 28 * i + 20, text: number(item.value) + " " + unit }),
  ]));
}
views.stats = async main => {
  const stats = await api("/api/stats");
  main.append(el("h2", { text: "Store statistics" }),
    el("p", { text: "map: " + number(stats.usedBytes) + " of " + number(stats.mapSize) + " bytes used; readers " + stats.readers + " of " + stats.maxReaders
      + "; pages of " + number(stats.pageSize) + " bytes" }),
    el("h3", { text: "pages" }),
    bars("pages-chart", [{ label: "in the file", value: stats.pagesInFile }, { label: "in use", value: stats.pagesInUse, color: "#3a9d5d" },
                         { label: "free", value: stats.freePages, color: "#d5a23a" }], "pages"),
    el("h3", { text: "map" }),
    bars("map-chart", [{ label: "map size", value: stats.mapSize }, { label: "used", value: stats.usedBytes, color: "#3a9d5d" }], "bytes"),
    el("h3", { text: "bytes per entity" }),
    bars("entity-chart", stats.entities.flatMap(e => [{ label: e.name + " records", value: e.bytes }, { label: e.name + " indexes", value: e.indexBytes, color: "#8a6fd1" }]), "bytes"));
};

// ---- write mode: edit as JSON, delete, import with the dry run first ----
function editor(entity, found) {
  const area = el("textarea", { id: "record-editor" });
  area.value = JSON.stringify(found.record, null, 2);
  const result = el("div", { id: "write-result" });
  const save = el("button", { id: "save", text: "save", on: { click: async () => {
    try {
      JSON.parse(area.value);
      const report = await api("/api/entities/" + encodeURIComponent(entity) + "/records", { method: "PUT", body: area.value, headers: { "Content-Type": "application/json" } });
      result.textContent = report.summary;
    } catch (error) { result.textContent = error.message; }
  } } });
  const remove = el("button", { id: "delete", text: "delete", on: { click: async () => {
    if (!confirm("Delete " + entity + " " + found.key + "?")) return;
    try { await api("/api/entities/" + encodeURIComponent(entity) + "/records/" + encodeURIComponent(found.key), { method: "DELETE" }); result.textContent = "deleted"; }
    catch (error) { result.textContent = error.message; }
  } } });
  const file = el("input", { type: "file", id: "import-file", accept: ".json,application/json" });
  const importReport = el("pre", { id: "import-report" });
  const commit = el("button", { id: "import-commit", text: "import", disabled: "" });
  let payload = null;
  file.addEventListener("change", async () => {
    payload = await file.files[0].text();
    try {
      const report = await api("/api/entities/" + encodeURIComponent(entity) + "/import?dryRun=1", { method: "POST", body: payload });
      importReport.textContent = "dry run: " + report.summary + (report.failures.length ? "\n" + report.failures.map(f => f.message).join("\n") : "");
      commit.disabled = report.failures.length > 0;
    } catch (error) { importReport.textContent = error.message; }
  });
  commit.addEventListener("click", async () => {
    try { const report = await api("/api/entities/" + encodeURIComponent(entity) + "/import?dryRun=0", { method: "POST", body: payload }); importReport.textContent = "imported: " + report.summary; commit.disabled = true; }
    catch (error) { importReport.textContent = error.message; }
  });
  return el("div", { class: "card" }, el("h4", { text: "edit as JSON" }), area, el("div", { class: "toolbar" }, save, remove), result,
    el("h4", { text: "import a JSON file into " + entity }), file, commit, importReport);
}
"""#
}
