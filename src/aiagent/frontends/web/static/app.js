// aiagent serve: the page. No framework, no build step. Model and tool text is only ever
// put into the page as text nodes (textContent / createTextNode), never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  token: "", session: "", running: false, lastId: "", turn: "", usage: null,
  live: null,        // the assistant segment being streamed: {el, text}
  tools: new Map(),  // tool call id -> its block
  cards: new Map(),  // approval id -> its card
  images: [],        // attached to the next message: {name, data (a data: URL)}
  opening: Promise.resolve(),  // the session being opened: a message waits for it
};

// ---- tiny DOM helpers --------------------------------------------------------------
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}
function button(label, cls, onClick) {
  const b = el("button", cls, label);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// ---- Markdown, safely --------------------------------------------------------------
// Blocks: ``` fences, <shell> blocks (shown as terminal blocks; the stored text is
// unchanged), headings, lists, quotes, paragraphs. Inline: `code`, **bold**, *em*,
// [links](http…). Everything becomes DOM nodes built from text.
function renderMarkdown(text) {
  const frag = document.createDocumentFragment();
  const parts = text.split(/(<shell>[\s\S]*?(?:<\/shell>|$))/);
  for (const part of parts) {
    if (!part) continue;
    if (part.startsWith("<shell>")) {
      const body = part.replace(/^<shell>/, "").replace(/<\/shell>$/, "");
      const box = el("div", "term");
      box.append(el("div", "term-head", "shell"), codeBlock(body.trim(), "sh"));
      frag.append(box);
    } else {
      renderBlocks(part, frag);
    }
  }
  return frag;
}

function renderBlocks(text, into) {
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(/^\s*```(\S*)/);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i])) body.push(lines[i++]);
      i++;
      into.append(codeBlock(body.join("\n"), fence[1].replace(/[^\w+#-]/g, "")));
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      const h = el("h" + Math.min(6, heading[1].length + 2));
      inline(heading[2], h);
      into.append(h);
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const list = el(ordered ? "ol" : "ul");
      while (i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i])) {
        const li = el("li");
        inline(lines[i].replace(/^\s*([-*+]|\d+[.)])\s+/, ""), li);
        list.append(li);
        i++;
      }
      into.append(list);
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quote = el("blockquote");
      const body = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) body.push(lines[i++].replace(/^>\s?/, ""));
      inline(body.join("\n"), quote);
      into.append(quote);
      continue;
    }
    if (!line.trim()) { i++; continue; }
    const para = [];
    while (i < lines.length && lines[i].trim() && !/^\s*```|^#{1,6}\s|^>|^\s*([-*+]|\d+[.)])\s+/.test(lines[i])) {
      para.push(lines[i++]);
    }
    const p = el("p");
    inline(para.join("\n"), p);
    into.append(p);
  }
}

// <pre><code> with the code highlighted when its language is known (text nodes and spans)
function codeBlock(text, lang) {
  const code = el("code", lang ? "lang-" + lang : null);
  const tokens = lang && window.aiagentHighlight ? window.aiagentHighlight(text, lang) : null;
  if (tokens) code.append(tokens);
  else code.textContent = text;
  const pre = el("pre");
  pre.append(code);
  return pre;
}

function inline(text, into) {
  const pattern = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(\[[^\]]+\]\([^)\s]+\))/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) into.append(document.createTextNode(text.slice(last, m.index)));
    const token = m[0];
    if (m[1]) into.append(el("code", null, token.slice(1, -1)));
    else if (m[2]) into.append(el("strong", null, token.slice(2, -2)));
    else if (m[3]) into.append(el("em", null, token.slice(1, -1)));
    else {
      const [, label, href] = token.match(/^\[([^\]]+)\]\(([^)\s]+)\)$/);
      if (/^https?:\/\//i.test(href)) {
        const a = el("a", null, label);
        a.href = href;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        into.append(a);
      } else {
        into.append(document.createTextNode(token));
      }
    }
    last = m.index + token.length;
  }
  if (last < text.length) into.append(document.createTextNode(text.slice(last)));
}

// ---- the API -----------------------------------------------------------------------
async function api(method, path, body) {
  const options = { method, headers: { Authorization: "Bearer " + state.token } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  if (!response.ok) {
    let message = response.status + " " + response.statusText;
    try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}
async function apiJson(method, path, body) {
  const response = await api(method, path, body);
  return response.status === 204 ? null : response.json();
}

// Read an SSE body; calls onEvent(type, data, id) for each event.
async function readSse(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const chunk = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const fields = {};
      for (const line of chunk.split("\n")) {
        if (!line || line.startsWith(":")) continue;
        const at = line.indexOf(":");
        const name = at < 0 ? line : line.slice(0, at);
        fields[name] = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
      }
      if (fields.event) onEvent(fields.event, fields.data ? JSON.parse(fields.data) : {}, fields.id || "");
    }
  }
}

// ---- sessions ----------------------------------------------------------------------
async function loadSessions() {
  const data = await apiJson("GET", "/api/sessions");
  const list = $("sessions");
  list.replaceChildren();
  for (const s of data.sessions) {
    const li = el("li", s.id === state.session ? "current" : "");
    const open = button(s.title || "(untitled)", "open", () => openSession(s.id));
    open.title = s.title || s.id;
    const rename = button("✎", "small", () => renameSession(s));
    rename.title = "Rename";
    rename.setAttribute("aria-label", "Rename " + (s.title || s.id));
    const remove = button("✕", "small", () => deleteSession(s));
    remove.title = "Delete";
    remove.setAttribute("aria-label", "Delete " + (s.title || s.id));
    li.append(open, rename, remove);
    list.append(li);
  }
  return data.sessions;
}

async function renameSession(s) {
  const title = window.prompt("New title", s.title || "");
  if (title === null || !title.trim()) return;
  await apiJson("PATCH", "/api/sessions/" + s.id, { title: title.trim() });
  if (s.id === state.session) $("title").textContent = title.trim();
  await loadSessions();
}

async function deleteSession(s) {
  if (!window.confirm("Delete “" + (s.title || s.id) + "”?")) return;
  await apiJson("DELETE", "/api/sessions/" + s.id);
  if (s.id === state.session) await newSession();
  else await loadSessions();
}

// Opening a session replaces the view once its history arrives; a message typed meanwhile
// waits for that (send awaits state.opening), so it goes to the session on screen and stays.
function opening(work) {
  const pending = work();
  state.opening = pending.catch(() => {});
  return pending;
}

function newSession() {
  return opening(async () => {
    const picker = $("engine");
    const created = await apiJson("POST", "/api/sessions", picker.hidden ? {} : { engine: picker.value });
    await showSession(created.id);
  });
}

function openSession(id) {
  return opening(() => showSession(id));
}

async function showSession(id) {
  const data = await apiJson("GET", "/api/sessions/" + id);
  state.session = id;
  sessionStorage.setItem("aiagent.session", id);
  $("title").textContent = data.title || "New session";
  const picker = $("engine");
  state.engine = data.engine;
  if (!picker.hidden && [...picker.options].some((o) => o.value === data.engine)) picker.value = data.engine;
  resetView();
  let messages = data.messages;
  const running = data.turn && data.turn.running;
  if (running) {  // the running turn is replayed from its start: show history before it
    let cut = messages.length;
    while (cut > 0 && !(messages[cut - 1].role === "user" &&
                        messages[cut - 1].content.some((b) => b.type === "text"))) cut--;
    messages = messages.slice(0, Math.max(0, cut - 1));
  }
  renderHistory(messages);
  showPlan(data.plan);  // the last stored plan; a running turn's events replace it
  await loadSessions();
  if (narrow()) setSidebar(false);
  if (running) follow(data.turn.id, "");
  updateEmpty();
}

function resetView() {
  showPlan(null);
  $("messages").replaceChildren();
  state.live = null;
  state.tools.clear();
  state.cards.clear();
}

function renderHistory(messages) {
  const pending = [];  // a user's images, shown with the text that follows them
  for (const m of messages) {
    for (const block of m.content) {
      if (block.type === "text" && m.role === "user") addUser(block.text, pending.splice(0));
      else if (block.type === "image") pending.push({ name: (block.name || "image") + " (" + block.describe + ")" });
      else if (block.type === "text") { segment().text = block.text; paint(); state.live = null; }
      else if (block.type === "tool_use") toolBlock(block.id, block.name, block.input);
      else if (block.type === "tool_result") toolResult(block.tool_use_id, block.content, block.is_error);
    }
  }
}

// ---- the conversation view -----------------------------------------------------------
function scrollDown() {
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
}
function addUser(text, images) {
  const box = el("div", "msg user");
  for (const image of images || []) box.append(el("span", "chip", "📎 " + image.name), el("br"));
  box.append(document.createTextNode(text));
  $("messages").append(box);
  updateEmpty();
  scrollDown();
}
function segment() {
  if (!state.live) {
    const node = el("div", "msg assistant");
    $("messages").append(node);
    state.live = { el: node, text: "" };
  }
  return state.live;
}
let painting = false;
function paint() {
  const live = state.live;
  if (!live) return;
  live.el.replaceChildren(renderMarkdown(live.text));
  scrollDown();
}
function paintSoon() {
  if (painting) return;
  painting = true;
  requestAnimationFrame(() => { painting = false; paint(); });
}
function summary(name, args) {
  if (args && typeof args.command === "string") return "$ " + args.command;
  if (args && Array.isArray(args.command)) return "$ " + args.command.join(" ");
  const path = args && (args.file_path || args.path);
  return name + (path ? " " + path : "");
}
function toolBlock(id, name, args) {
  state.live = null;
  const box = el("details", "tool");
  box.open = true;
  const head = el("summary", null, summary(name, args));
  const output = el("pre", "output");
  output.hidden = true;
  const result = el("pre", "result");
  result.hidden = true;
  box.append(head, output, result);
  $("messages").append(box);
  state.tools.set(id, { box, output, result });
  scrollDown();
}
function toolOutput(id, chunk) {
  const tool = state.tools.get(id);
  if (!tool) return;
  tool.output.hidden = false;
  tool.output.append(document.createTextNode(chunk));
  scrollDown();
}
function toolResult(id, content, isError) {
  const tool = state.tools.get(id);
  if (!tool) return;
  const shown = content.length > 4000 ? content.slice(0, 4000) + "\n… (" + content.length + " characters)" : content;
  tool.result.textContent = shown;
  tool.result.hidden = false;
  tool.result.classList.toggle("error", !!isError);
  if (!tool.output.hidden) tool.box.open = false;
}
// a task child's step: a labelled line in its task call's block
function subagentLine(data) {
  const tool = state.tools.get(data.id);
  if (!tool || !data.line) return;
  tool.output.hidden = false;
  tool.output.append(el("div", "subagent-line", data.line));
  scrollDown();
}
function diffBlock(diff) {
  const pre = el("pre", "diff");
  for (const line of diff.split("\n")) {
    pre.append(el("span", line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : null, line + "\n"));
  }
  return pre;
}
function fileDiff(data) {
  const tool = state.tools.get(data.id);
  (tool ? tool.box : $("messages")).append(diffBlock(data.diff));
}
// the model's plan (update_plan): a compact checklist above the composer, replaced whole
const PLAN_MARKS = { completed: "✓", in_progress: "▸", pending: "○" };
function showPlan(plan) {
  const box = $("plan");
  const steps = plan && Array.isArray(plan.steps) ? plan.steps : [];
  box.hidden = steps.length === 0;
  const done = steps.filter((s) => s.status === "completed").length;
  const head = $("plan-head");
  head.textContent = "Plan · " + done + "/" + steps.length + " done" +
    (plan && plan.explanation ? " · " + plan.explanation : "");
  head.title = head.textContent;
  $("plan-steps").replaceChildren(...steps.map((s) => {
    const li = el("li", PLAN_MARKS[s.status] ? s.status : "pending");
    const step = el("span", "step", String(s.step));
    step.title = String(s.step);  // one line each; the whole text on hover
    li.append(el("span", "mark", PLAN_MARKS[s.status] || "○"), step);
    return li;
  }));
}
const LABELS = { once: "Allow once", session: "This session", project: "Always in this project",
                 always: "Always", deny: "Deny" };
function approvalCard(data) {
  state.live = null;
  const card = el("div", "approval");
  const title = data.command ? "Run this command?" : data.paths.length ? "Apply this change?" : "Allow " + data.tool + "?";
  card.append(el("strong", null, (data.agent ? "[" + data.agent + "] " : "") + title));
  card.append(el("div", "what", data.command ? "$ " + data.command : data.paths.length ? data.paths.join(", ") : data.what));
  if (data.diff) card.append(diffBlock(data.diff));
  const choices = el("div", "choices");
  for (const option of data.options) {
    const b = button(LABELS[option] || option, option === "deny" ? "danger" : option === "once" ? "primary" : "",
                     () => answer(data.id, option));
    b.dataset.answer = option;
    choices.append(b);
  }
  card.append(choices);
  $("messages").append(card);
  state.cards.set(data.id, card);
  scrollDown();
}
function approvalAnswered(id, given) {
  const card = state.cards.get(id);
  if (!card) return;
  card.querySelectorAll("button").forEach((b) => { b.disabled = true; });
  const choices = card.querySelector(".choices");
  choices.replaceWith(el("div", "answered", "Answered: " + (LABELS[given] || given)));
}
async function answer(id, option) {
  try {
    await apiJson("POST", "/api/sessions/" + state.session + "/approvals/" + encodeURIComponent(id),
                  { answer: option });
  } catch (e) { status(e.message, true); }
}

// ---- a turn ------------------------------------------------------------------------
function onEvent(type, data, id) {
  if (id) {
    state.lastId = id;
    state.turn = id.slice(0, id.lastIndexOf("-"));
  }
  switch (type) {
    case "turn-start": break;
    case "text": segment().text += data.text; paintSoon(); break;
    case "retry": if (state.live) { state.live.text = ""; paintSoon(); } break;
    case "iteration-end": paint(); state.live = null; break;
    case "tool-call": toolBlock(data.id, data.name, data.args); break;
    case "tool-output": toolOutput(data.id, data.chunk); break;
    case "tool-result": toolResult(data.id, data.content, data.is_error); break;
    case "subagent": subagentLine(data); break;
    case "file-diff": fileDiff(data); break;
    case "plan": showPlan(data); break;
    case "approval-request": approvalCard(data); break;
    case "approval-answer": approvalAnswered(data.id, data.answer); break;
    case "usage": showUsage(data.total, data.cost); break;
    case "error": $("messages").append(el("div", "msg error-line", data.message)); break;
    case "notice": $("messages").append(el("div", "msg notice-line", data.message)); break;
    case "gap": status("some events were too old to replay", true); break;
    case "done": paint(); state.live = null; setRunning(false);
      status(data.stop_reason === "completed" ? "" : "stopped: " + data.stop_reason, data.stop_reason === "error");
      break;
  }
}

async function follow(turn, lastId) {
  setRunning(true);
  for (let attempt = 0; attempt < 5 && state.running; attempt++) {
    try {
      const headers = lastId ? { "Last-Event-ID": lastId } : {};
      const query = lastId ? "" : "?turn=" + encodeURIComponent(turn);
      const response = await fetch("/api/sessions/" + state.session + "/events" + query,
        { headers: { Authorization: "Bearer " + state.token, ...headers } });
      if (!response.ok) break;
      await readSse(response, onEvent);
      if (!state.running) return;
    } catch (e) { await new Promise((r) => setTimeout(r, 500 * (attempt + 1))); }
    lastId = state.lastId;
  }
  setRunning(false);
}

// ---- images attached to the next message (a file picker, paste, drop) ------------------
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
function attachFiles(files) {
  for (const file of files) {
    if (!IMAGE_TYPES.includes(file.type)) { status(file.name + ": not a PNG, JPEG, GIF or WebP image", true); continue; }
    const reader = new FileReader();
    reader.onload = () => { state.images.push({ name: file.name || "pasted image", data: reader.result }); showAttached(); };
    reader.onerror = () => status(file.name + ": cannot be read", true);
    reader.readAsDataURL(file);
  }
}
function showAttached() {
  const box = $("attachments");
  box.hidden = state.images.length === 0;
  box.replaceChildren(...state.images.map((image, n) => {
    const chip = el("span", "chip", "📎 " + image.name);
    const remove = button("×", "remove", () => { state.images.splice(n, 1); showAttached(); });
    remove.title = "Remove " + image.name;
    chip.append(remove);
    return chip;
  }));
}
function pastedImages(e) {
  const files = [...(e.clipboardData || e.dataTransfer || { files: [] }).files].filter((f) => IMAGE_TYPES.includes(f.type));
  if (files.length) { e.preventDefault(); attachFiles(files); }
}

async function send(text) {
  await state.opening;
  if (!text.trim() || state.running) return;
  if (!state.session) await newSession();
  const images = state.images.splice(0);
  showAttached();
  addUser(text, images);
  $("input").value = "";
  state.lastId = "";
  setRunning(true);
  status("");
  try {
    const body = images.length ? { text, images: images.map((i) => ({ name: i.name, data: i.data })) } : { text };
    const response = await api("POST", "/api/sessions/" + state.session + "/messages", body);
    await readSse(response, onEvent);
  } catch (e) {
    if (!state.lastId) {  // refused (a bad image…): the message and its images come back
      setRunning(false); status(e.message, true);
      if (!$("input").value) $("input").value = text;
      if (!state.images.length) { state.images = images; showAttached(); }
      return;
    }
  }
  if (state.running) await follow(state.turn, state.lastId);  // the stream broke: resume
  await loadSessions();
  const current = await apiJson("GET", "/api/sessions/" + state.session);
  $("title").textContent = current.title || "New session";
}

async function stop() {
  if (!state.running) return;
  try { await apiJson("POST", "/api/sessions/" + state.session + "/stop"); }
  catch (e) { status(e.message, true); }
}

function setRunning(running) {
  state.running = running;
  $("send").hidden = running;
  $("stop").hidden = !running;
}
function status(text, isError) {
  $("status").textContent = text;
  $("status").classList.toggle("error", !!isError);
}
function showUsage(total, cost) {
  if (!total) return;
  const input = total.input_tokens + total.cache_read_tokens + total.cache_write_tokens;
  const dollars = typeof cost === "number" ? " · $" + cost.toFixed(cost < 0.01 ? 4 : 2) : "";
  $("usage").textContent = input + " in · " + total.output_tokens + " out tokens" + dollars;
}

// ---- export: the stored conversation as a download (the token goes in a header) ------
async function exportSession(format) {
  if (!state.session) { status("Open a session to export it.", true); return; }
  try {
    const response = await api("GET", "/api/sessions/" + state.session + "/export?format=" + format);
    const url = URL.createObjectURL(await response.blob());
    const link = el("a");
    link.href = url;
    link.download = "aiagent-session-" + state.session + "." + format;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (e) { status(e.message, true); }
}

// ---- scheduled tasks -------------------------------------------------------------------
async function loadSchedules() {
  const data = await apiJson("GET", "/api/schedules");
  const list = $("schedules");
  list.replaceChildren();
  for (const job of data.schedules) {
    const li = el("li", "job");
    const text = el("div", "job-text");
    text.append(el("code", null, job.cron), document.createTextNode(" " + job.prompt));
    const last = job.runs.find((r) => r.status !== "running") || job.runs[0];
    const line = el("div", "job-status", last ? "last: " + last.status + (last.note ? " (" + last.note + ")" : "") : "not run yet");
    if (job.missed) line.append(document.createTextNode(" · " + job.missed + " missed"));
    text.append(line);
    li.append(text);
    if (last && last.session_id) {
      const open = button("Open", "small", () => openSession(last.session_id).catch((e) => status(e.message, true)));
      open.title = "Open the last run";
      li.append(open);
    }
    const remove = button("✕", "small", () => removeSchedule(job));
    remove.title = "Remove";
    remove.setAttribute("aria-label", "Remove scheduled task " + job.id);
    li.append(remove);
    list.append(li);
  }
}
async function addSchedule(event) {
  event.preventDefault();
  try {
    await apiJson("POST", "/api/schedules", { cron: $("cron").value.trim(), prompt: $("cron-prompt").value });
    $("cron-prompt").value = "";
    status("Scheduled.");
    await loadSchedules();
  } catch (e) { status(e.message, true); }
}
async function removeSchedule(job) {
  if (!window.confirm("Remove the scheduled task “" + job.prompt.slice(0, 60) + "”?")) return;
  try { await apiJson("DELETE", "/api/schedules/" + job.id); await loadSchedules(); }
  catch (e) { status(e.message, true); }
}
function updateEmpty() {
  $("empty").hidden = $("messages").childElementCount > 0;
  $("messages").hidden = !$("empty").hidden;
}

// ---- layout --------------------------------------------------------------------------
function narrow() { return window.matchMedia("(max-width: 700px)").matches; }
function setSidebar(open) {
  $("app").classList.toggle("sidebar-open", open);
  $("toggle-sidebar").setAttribute("aria-expanded", String(open));
  localStorage.setItem("aiagent.sidebar", open ? "open" : "closed");
}

// ---- engines: aiagent, or another ACP agent from [web.engines.NAME] ----------------------
function showEngines(engines) {
  const picker = $("engine");
  if (engines.length < 2) return;  // only our own: no selector
  picker.replaceChildren(...engines.map((name) => {
    const option = el("option", "", name);
    option.value = name;
    return option;
  }));
  picker.hidden = false;
  picker.addEventListener("change", () => {
    if (state.running) { picker.value = state.engine; status("Stop the turn first."); return; }
    newSession().catch((e) => status(e.message, true));
  });
}

// ---- start -----------------------------------------------------------------------------
function readToken() {
  const match = location.hash.match(/token=([\w-]+)/);
  if (match) {
    sessionStorage.setItem("aiagent.token", match[1]);
    history.replaceState(null, "", location.pathname);  // the token leaves the address bar
  }
  return sessionStorage.getItem("aiagent.token") || "";
}

async function start() {
  state.token = readToken();
  const saved = localStorage.getItem("aiagent.sidebar");
  setSidebar(narrow() ? false : saved !== "closed");
  $("toggle-sidebar").addEventListener("click", () =>
    setSidebar(!$("app").classList.contains("sidebar-open")));
  $("clear").addEventListener("click", () => newSession().catch((e) => status(e.message, true)));
  $("stop").addEventListener("click", stop);
  $("export-md").addEventListener("click", () => exportSession("md"));
  $("export-json").addEventListener("click", () => exportSession("json"));
  $("schedule-form").addEventListener("submit", addSchedule);
  $("composer").addEventListener("submit", (e) => { e.preventDefault(); send($("input").value); });
  $("image-file").addEventListener("change", (e) => { attachFiles([...e.target.files]); e.target.value = ""; });
  $("input").addEventListener("paste", pastedImages);
  $("composer").addEventListener("dragover", (e) => e.preventDefault());
  $("composer").addEventListener("drop", pastedImages);
  $("input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); send($("input").value); }
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") stop(); });
  for (const example of document.querySelectorAll(".example")) {
    example.addEventListener("click", () => { $("input").value = example.textContent; $("input").focus(); });
  }
  if (!state.token) {
    status("No access token: open the URL that `aiagent serve` printed.", true);
    updateEmpty();
    return;
  }
  try {
    const info = await apiJson("GET", "/api/info");
    $("workspace").textContent = info.workspace + " · " + info.model;
    showEngines(info.engines || []);
    const sessions = await loadSessions();
    await loadSchedules();
    const wanted = sessionStorage.getItem("aiagent.session");
    if (wanted && sessions.some((s) => s.id === wanted)) await openSession(wanted);
    else if (sessions.length) await openSession(sessions[0].id);
    else updateEmpty();
  } catch (e) { status(e.message, true); updateEmpty(); }
}

document.addEventListener("DOMContentLoaded", start);
