/// The page's script, plain JavaScript without a library: its helpers, the API client, the
/// live stream, the entities view and the records grid (``core``), and the other views
/// (``views``, in StudioScript+Views.swift). Every value from the store reaches the page through
/// `textContent` or an attribute set with `setAttribute` on an element the script made, never
/// through markup.
enum StudioScript {
    static let core = #"""
"use strict";
// ---- helpers: every node is made here; strings become text nodes, never markup ----
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "on") { for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler); }
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "text") node.textContent = value; else node.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) if (child) node.append(child);
  return node;
}
function cellText(value) {
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
function number(n) { return Number(n).toLocaleString("en-US"); }
function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message;
  box.classList.add("shown");
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => box.classList.remove("shown"), 6000);
}
class APIError extends Error {
  constructor(status, body) { super(body && body.error ? body.error.message : "HTTP " + status); this.status = status; this.body = body; }
}
async function api(path, options) {
  const response = await fetch(path, Object.assign({ credentials: "same-origin", headers: { "Accept": "application/json" } }, options || {}));
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
  if (!response.ok) throw new APIError(response.status, body);
  return body;
}
// Percent-encoding every parameter (a space as %20: the server reads a '+' as a plus sign, not a space).
function query(params) {
  const parts = [];
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") parts.push(encodeURIComponent(name) + "=" + encodeURIComponent(value));
  }
  return parts.length ? "?" + parts.join("&") : "";
}
function table(columns, rows, onClick) {
  const head = el("tr", {}, columns.map(c => el("th", { class: c.numeric ? "num" : "" , text: c.title })));
  const body = rows.map(row => {
    const tr = el("tr", onClick ? { class: "clickable", on: { click: () => onClick(row) } } : {},
      columns.map(c => el("td", { class: c.numeric ? "num" : "", title: cellText(c.value(row)), text: c.numeric ? number(c.value(row)) : cellText(c.value(row)) })));
    return tr;
  });
  return el("table", {}, el("thead", {}, head), el("tbody", {}, body));
}

// ---- state, tabs, the live stream ----
const state = { view: "entities", entities: [], writable: false, entity: null, grid: null, listeners: [] };
const views = {};
function onCommit(listener) { state.listeners.push(listener); }
function show(view) {
  state.view = view;
  for (const button of document.querySelectorAll("#tabs button")) button.classList.toggle("active", button.dataset.view === view);
  const main = document.getElementById("view");
  main.replaceChildren();
  main.dataset.view = view;
  Promise.resolve(views[view](main)).catch(error => showError(error.message));
}
function connectEvents() {
  const live = document.getElementById("live");
  const source = new EventSource("/api/events");
  source.addEventListener("open", () => live.classList.add("on"));
  source.addEventListener("error", () => live.classList.remove("on"));
  source.addEventListener("commit", event => {
    const data = JSON.parse(event.data);
    live.classList.add("flash");
    setTimeout(() => live.classList.remove("flash"), 300);
    for (const entity of state.entities) if (data.counts[entity.name] !== undefined) entity.records = data.counts[entity.name];
    document.body.dataset.snapshot = String(data.snapshot);
    for (const listener of state.listeners) listener(data);
  });
}
async function start() {
  if (location.search.includes("token=")) history.replaceState(null, "", location.pathname);
  const info = await api("/api/studio");
  state.writable = info.writable;
  document.getElementById("store-path").textContent = info.path;
  document.getElementById("mode").textContent = info.writable ? "write" : "read-only";
  state.entities = (await api("/api/entities")).entities;
  state.entity = state.entities.length ? state.entities[0].name : null;
  for (const button of document.querySelectorAll("#tabs button")) button.addEventListener("click", () => show(button.dataset.view));
  onCommit(() => { for (const cell of document.querySelectorAll("[data-count-of]")) {
    const entity = state.entities.find(e => e.name === cell.dataset.countOf);
    if (entity) cell.textContent = number(entity.records);
  } });
  onCommit(() => { if (state.view === "records" && state.grid) state.grid.refresh(); });
  connectEvents();
  show("entities");
}
document.addEventListener("DOMContentLoaded", () => start().catch(error => showError(error.message)));

// ---- entities: counts, schema, indexes ----
views.entities = async main => {
  const list = el("table", { id: "entities" },
    el("thead", {}, el("tr", {}, el("th", { text: "entity" }), el("th", { class: "num", text: "records" }), el("th", { class: "num", text: "bytes" }),
      el("th", { text: "key" }), el("th", { class: "num", text: "indexes" }), el("th", { class: "num", text: "relationships" }))),
    el("tbody", {}, state.entities.map(entity => el("tr", { class: "clickable", on: { click: () => { state.entity = entity.name; showSchema(detail, entity.name); } } },
      el("td", { text: entity.name }), el("td", { class: "num", "data-count-of": entity.name, text: number(entity.records) }),
      el("td", { class: "num", text: number(entity.bytes) }), el("td", { text: entity.primaryKey.join(", ") }),
      el("td", { class: "num", text: number(entity.indexes) }), el("td", { class: "num", text: number(entity.relationships) })))));
  const detail = el("div", { id: "schema" });
  main.append(el("h2", { text: "Entities" }), list, detail);
  if (state.entity) await showSchema(detail, state.entity);
};
async function showSchema(detail, name) {
  const [schema, indexes] = await Promise.all([api("/api/entities/" + encodeURIComponent(name) + "/schema"), api("/api/entities/" + encodeURIComponent(name) + "/indexes")]);
  detail.replaceChildren(
    el("h3", { text: name + ": schema" }),
    table([{ title: "field", value: f => f.name }, { title: "type", value: f => f.type }, { title: "optional", value: f => f.optional ? "yes" : "" },
           { title: "JSON key", value: f => f.jsonKey }, { title: "default", value: f => f.default === null ? "" : JSON.stringify(f.default) }], schema.fields),
    el("h3", { text: name + ": indexes" }),
    table([{ title: "index", value: i => i.name }, { title: "entries", value: i => i.entries, numeric: true }, { title: "bytes", value: i => i.bytes, numeric: true },
           { title: "unique", value: i => i.unique ? "yes" : "" }, { title: "kind", value: i => i.fullText ? "full text" : (i.multiValue ? "multi-value" : "") }], indexes.indexes));
}

// ---- records: keyset pages, sort by an indexed field, column choice, the record view ----
function entityPicker(onChange) {
  return el("select", { id: "entity-picker", on: { change: event => { state.entity = event.target.value; onChange(); } } },
    state.entities.map(e => { const option = el("option", { value: e.name, text: e.name }); if (e.name === state.entity) option.selected = true; return option; }));
}
views.records = async main => {
  const grid = { after: [], next: null, hidden: new Set() };
  state.grid = grid;
  const holder = el("div", { id: "grid" });
  const record = el("div", { id: "record" });
  const sort = el("select", { id: "sort", on: { change: () => { grid.after = []; grid.load(); } } });
  const descending = el("input", { type: "checkbox", id: "desc", on: { change: () => { grid.after = []; grid.load(); } } });
  const previous = el("button", { id: "previous", text: "◀ previous", on: { click: () => { grid.after.pop(); grid.load(); } } });
  const next = el("button", { id: "next", text: "next ▶", on: { click: () => { grid.after.push(grid.next); grid.load(); } } });
  const position = el("span", { id: "page-number" });
  const columns = el("span", { class: "columns", id: "columns" });
  async function setUp() {
    const schema = await api("/api/entities/" + encodeURIComponent(state.entity) + "/schema");
    const indexed = [...new Set(schema.indexes.map(i => i.fields[0]))].filter(f => f !== schema.primaryKey[0]);
    sort.replaceChildren(el("option", { value: "", text: schema.primaryKey.join(",") + " (key)" }), ...indexed.map(f => el("option", { value: f, text: f })));
    grid.after = []; grid.hidden = new Set(); grid.columns = null;
    await grid.load();
  }
  grid.load = async () => {
    const after = grid.after.length ? grid.after[grid.after.length - 1] : undefined;
    const page = await api("/api/entities/" + encodeURIComponent(state.entity) + "/records" + query({ after, limit: 25, sort: sort.value, desc: descending.checked ? "1" : "" }));
    grid.page = page; grid.next = page.next;
    if (!grid.columns) grid.columns = page.columns;
    for (const c of page.columns) if (!grid.columns.includes(c)) grid.columns.push(c);
    columns.replaceChildren("columns: ", ...grid.columns.map(c => el("label", {}, el("input", Object.assign({ type: "checkbox", "data-column": c,
      on: { change: event => { if (event.target.checked) grid.hidden.delete(c); else grid.hidden.add(c); grid.draw(); } } }, grid.hidden.has(c) ? {} : { checked: "" })), c)));
    previous.disabled = grid.after.length === 0; next.disabled = !page.next;
    position.textContent = "page " + (grid.after.length + 1);
    grid.draw();
  };
  grid.draw = () => {
    const shown = grid.columns.filter(c => !grid.hidden.has(c));
    holder.replaceChildren(table([{ title: "key", value: r => r.key }].concat(shown.map(c => ({ title: c, value: r => r.record[c] }))),
      grid.page.records, row => showRecord(record, state.entity, row.key)));
  };
  grid.refresh = () => grid.load().catch(error => showError(error.message));
  main.append(el("div", { class: "toolbar" }, entityPicker(setUp), "sort by", sort, el("label", {}, descending, "descending"), previous, position, next),
    el("div", { class: "toolbar" }, columns), holder, record);
  if (state.entity) await setUp();
};
async function showRecord(holder, entity, key) {
  const found = await api("/api/entities/" + encodeURIComponent(entity) + "/records/" + encodeURIComponent(key));
  const related = el("div", { id: "related" }, found.related.map(group => el("div", { class: "card" },
    el("h4", { text: group.relationship + " → " + group.entity + " (" + group.records.length + ")" }),
    el("ul", {}, group.records.map(r => el("li", {}, el("a", { href: "#", text: group.entity + " " + r.key,
      on: { click: event => { event.preventDefault(); showRecord(holder, group.entity, r.key); } } })))))));
  const text = el("pre", { id: "record-json", text: JSON.stringify(found.record, null, 2) });
  const parts = [el("h3", { text: entity + " " + found.key }), el("div", { class: "record-view" }, text, related)];
  if (state.writable) parts.push(editor(entity, found));
  holder.replaceChildren(...parts);
}
"""#
}
