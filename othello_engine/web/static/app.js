// The page of `othello-engine web`: draws what the server sends and sends what the person does.
// All the rules live on the server; this script never decides whether a move is legal.
"use strict";

const FILES = "abcdefghijklmnopqrstuvwxyz";
const $ = (sel) => document.querySelector(sel);
const boardEl = $("#board");
let ws = null;
let S = null;              // the last state from the server
let squares = [];          // square elements, row by row from a1
let boardSize = 0;
let editing = null;        // the editor's cells (array of "X" / "O" / "-") while editing
let pendingClick = null;   // performance.now() of the last move click, until the board is redrawn
let hintAsked = -1;        // the version an automatic hint was asked for
window.othelloLatencies = [];

function squareName(i, n) { return FILES[i % n] + (Math.floor(i / n) + 1); }

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
}

function say(text, kind) {
  const el = $("#message");
  el.textContent = text || "";
  el.className = kind || "";
}

// --- connection -----------------------------------------------------------------------------
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${scheme}://${location.host}/ws`);
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = () => {
    document.body.dataset.connected = "false";
    if (!$("#message").textContent) say("The connection to the server is closed: reload the page.");
    if (S) $("#status").textContent = S.status;
  };
  ws.onopen = () => { document.body.dataset.connected = "true"; };
}

function urlGame() {
  const params = new URLSearchParams(location.search);
  const message = { type: "new" };
  let given = false;
  for (const key of ["size", "movetime", "depth"]) {
    if (params.has(key)) { message[key] = Number(params.get(key)); given = true; }
  }
  for (const key of ["black", "white"]) {
    if (params.has(key)) { message[key] = params.get(key); given = true; }
  }
  return given ? message : null;
}

function receive(m) {
  switch (m.type) {
    case "hello": {
      const game = urlGame();
      if (game) send(game);
      break;
    }
    case "state": render(m); break;
    case "games": renderGames(m.games); break;
    case "results": renderResults(m.results); break;
    case "saved": download(m.name, m.ggf); say(`Saved as "${m.name}" (and downloaded).`, "note"); break;
    case "error":
      say(m.message);
      if (m.code === "full" || m.code === "idle") $("#status").textContent = "Not connected";
      break;
  }
}

// --- the board --------------------------------------------------------------------------------
function buildBoard(n) {
  boardEl.textContent = "";
  boardEl.style.gridTemplateColumns = `repeat(${n}, 1fr)`;
  boardEl.dataset.size = String(n);
  squares = [];
  const frag = document.createDocumentFragment();
  for (let i = 0; i < n * n; i++) {
    const sq = document.createElement("div");
    sq.className = "sq";
    sq.dataset.square = squareName(i, n);
    sq.title = sq.dataset.square;
    const disc = document.createElement("div");
    disc.className = "disc";
    const hint = document.createElement("span");
    hint.className = "hint";
    sq.append(disc, hint);
    frag.append(sq);
    squares.push(sq);
  }
  boardEl.append(frag);
  const files = $("#files"), ranks = $("#ranks");
  files.style.gridTemplateColumns = `repeat(${n}, 1fr)`;
  ranks.style.gridTemplateRows = `repeat(${n}, 1fr)`;
  files.replaceChildren(...Array.from({ length: n }, (_, c) => Object.assign(
    document.createElement("span"), { textContent: FILES[c] })));
  ranks.replaceChildren(...Array.from({ length: n }, (_, r) => Object.assign(
    document.createElement("span"), { textContent: String(r + 1) })));
  boardSize = n;
}

function setAttr(el, name, value) {
  // only touch the DOM when something changes: a 26x26 board has 676 squares
  if (value === null || value === undefined || value === false) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== String(value)) {
    el.setAttribute(name, String(value));
  }
}

function drawCells(cells, legal, last, hints) {
  const hintValues = Object.values(hints);
  const best = hintValues.length ? Math.max(...hintValues) : null;
  for (let i = 0; i < squares.length; i++) {
    const sq = squares[i];
    const name = sq.dataset.square;
    const c = cells[i];
    setAttr(sq, "data-disc", c === "X" ? "black" : c === "O" ? "white" : null);
    setAttr(sq, "data-legal", legal.has(name) ? "" : null);
    setAttr(sq, "data-last", name === last ? "" : null);
    const h = hints[name];
    const text = h === undefined ? "" : (h > 0 ? "+" : "") + Math.round(h);
    setAttr(sq, "data-hint", h === undefined ? null : text);
    const span = sq.lastChild;
    if (span.textContent !== text) span.textContent = text;
    span.classList.toggle("best", h !== undefined && h === best);
  }
}

function render(state) {
  S = state;
  if (state.size !== boardSize) buildBoard(state.size);
  if (editing) {
    drawCells(editing, new Set(), null, {});
  } else {
    drawCells(state.cells, new Set(state.legal), state.last, state.hints || {});
  }
  boardEl.dataset.turn = state.turn;
  boardEl.dataset.ply = String(state.ply);
  boardEl.dataset.over = String(state.over);
  boardEl.dataset.thinking = state.thinking || "";
  $("#status").textContent = state.status;
  $("#count-black").textContent = state.count.black;
  $("#count-white").textContent = state.count.white;
  $("#thinking").textContent = thinkingText(state);
  if (state.notes && state.notes.length) say(state.notes.join(" "), "note");
  syncForm(state);
  drawMoves(state);
  drawGraph(state);
  const engines = state.players.black === "engine" || state.players.white === "engine";
  $('[data-action="undo"]').disabled = !state.can_undo;
  $('[data-action="redo"]').disabled = !state.can_redo;
  $('[data-action="hint"]').disabled = state.over || state.thinking === "move";
  $('[data-action="resume"]').disabled = !engines || state.over;
  $('[data-action="resume"]').textContent = state.paused ? "Resume" : "Pause";
  $('[data-action="stop"]').disabled = !state.thinking;
  if (pendingClick !== null) {
    const ms = performance.now() - pendingClick;
    pendingClick = null;
    window.othelloLatencies.push(ms);
    document.body.dataset.latency = ms.toFixed(1);
  }
  autoHint(state);
}

function thinkingText(state) {
  if (state.thinking === "move") return "Engine thinking...";
  if (state.thinking === "hint") return "Scoring the moves...";
  if (state.thinking === "analyze") {
    const done = state.analysis.filter((v) => v !== null).length;
    return `Analysing ${done}/${state.analysis.length}...`;
  }
  if (state.paused) return "Engine paused";
  return "";
}

function autoHint(state) {
  const human = state.players[state.turn] === "human";
  if ($("#auto-hint").checked && human && !state.over && !state.thinking && !editing
      && Object.keys(state.hints).length === 0 && state.legal.length && hintAsked !== state.version) {
    hintAsked = state.version;
    send({ type: "hint" });
  }
}

let formKey = "";
function syncForm(state) {
  // the form follows the game when the game's settings change, not while the person edits it
  const key = [state.size, state.players.black, state.players.white, state.movetime, state.depth].join();
  if (key === formKey) return;
  formKey = key;
  $("#size").value = String(state.size);
  $("#black").value = state.players.black;
  $("#white").value = state.players.white;
  $("#limit-kind").value = state.depth ? "depth" : "movetime";
  $("#limit-value").value = String(state.depth || state.movetime);
}

function drawMoves(state) {
  const list = $("#moves");
  const items = [];
  for (const h of state.history) {
    const li = document.createElement("li");
    li.dataset.ply = String(h.ply + 1);
    const number = document.createElement("span");
    number.className = "n";
    number.textContent = `${h.ply + 1}.`;
    const move = document.createElement("span");
    move.className = "mv";
    move.textContent = h.move;
    li.append(number, move);
    if (h.loss && h.move !== "pass") {
      const loss = document.createElement("span");
      loss.className = "loss";
      loss.textContent = `-${h.loss}`;
      loss.title = "discs lost against the best move";
      li.append(loss);
    }
    if (!h.played) li.className = "future";
    if (h.ply + 1 === state.ply) li.classList.add("current");
    items.push(li);
  }
  list.replaceChildren(...items);
  const current = list.querySelector(".current");
  if (current) {   // scroll the list only, never the page
    const top = current.offsetTop;   // the list is the offset parent (position: relative)
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.offsetHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  }
}

function drawGraph(state) {
  const svg = $("#graph");
  const W = 400, H = 160, mid = H / 2;
  const evals = state.evals, analysis = state.analysis || [];
  const total = Math.max(evals.length - 1, 1);
  const values = evals.concat(analysis).filter((v) => v !== null);
  const top = Math.max(8, ...values.map(Math.abs));
  const x = (p) => (p / total) * W;
  const y = (v) => mid - (v / top) * (mid - 6);
  const parts = [`<line x1="0" y1="${mid}" x2="${W}" y2="${mid}" stroke="#999" stroke-width="1"/>`];
  const losses = state.history.map((h) => h.loss);
  const barW = Math.max(1, W / total * 0.7);
  losses.forEach((loss, i) => {
    if (loss) {
      const h = Math.min(mid, (loss / top) * (mid - 6));
      parts.push(`<rect class="loss-bar" data-ply="${i + 1}" x="${x(i + 1) - barW / 2}" y="${H - h}" `
                 + `width="${barW}" height="${h}" fill="#e57373" opacity="0.8"/>`);
    }
  });
  const line = (series, colour, cls) => {
    const pts = [];
    series.forEach((v, p) => { if (v !== null) pts.push(`${x(p).toFixed(1)},${y(v).toFixed(1)}`); });
    if (pts.length) {
      parts.push(`<polyline class="${cls}" points="${pts.join(" ")}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    }
  };
  line(evals, "#1e88e5", "eval-line");
  line(analysis, "#2e7d32", "analysis-line");
  parts.push(`<line x1="${x(state.ply)}" y1="0" x2="${x(state.ply)}" y2="${H}" stroke="#f9a825" stroke-width="2"/>`);
  parts.push(`<text x="4" y="12" font-size="11" fill="#555">+${Math.round(top)}</text>`);
  parts.push(`<text x="4" y="${H - 4}" font-size="11" fill="#555">-${Math.round(top)}</text>`);
  svg.innerHTML = parts.join("");
  svg.dataset.points = String(evals.filter((v) => v !== null).length);
  svg.dataset.analysed = String(analysis.filter((v) => v !== null).length);
}

function renderGames(games) {
  const list = $("#games");
  const items = games.map((g) => {
    const li = document.createElement("li");
    const open = document.createElement("button");
    open.textContent = g.name;
    open.dataset.game = g.name;
    li.append(open);
    if (g.size) li.append(` ${g.size}x${g.size}, ${g.moves} moves${g.result ? ", " + g.result : ""}`);
    if (g.error) li.append(` (${g.error})`);
    return li;
  });
  if (!items.length) {
    const li = document.createElement("li");
    li.textContent = "none yet";
    items.push(li);
  }
  list.replaceChildren(...items);
}

function renderResults(results) {
  const table = $("#results");
  const rows = ["<tr><th>size</th><th>opponent</th><th>won</th><th>lost</th><th>drawn</th></tr>"];
  const sizes = Object.keys(results).sort((a, b) => Number(a) - Number(b));
  const esc = (t) => t.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  for (const size of sizes) {
    for (const [opponent, r] of Object.entries(results[size])) {
      rows.push(`<tr data-size="${esc(size)}" data-opponent="${esc(opponent)}"><td>${esc(size)}x${esc(size)}</td>`
                + `<td>${esc(opponent)}</td><td>${r.win}</td><td>${r.loss}</td><td>${r.draw}</td></tr>`);
    }
  }
  if (rows.length === 1) rows.push('<tr><td colspan="5">no finished games against the engine yet</td></tr>');
  table.innerHTML = rows.join("");
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/octet-stream" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = `${name}.ggf`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// --- the editor -----------------------------------------------------------------------------
function startEditing() {
  if (!S) return;
  editing = Array.from(S.cells);
  $("#edit-turn").value = S.turn;
  $("#editor").hidden = false;
  boardEl.classList.add("editing");
  render(S);
}

function stopEditing() {
  editing = null;
  $("#editor").hidden = true;
  boardEl.classList.remove("editing");
  if (S) render(S);
}

function editSquare(i) {
  const brush = document.querySelector('input[name="brush"]:checked').value;
  const want = brush === "black" ? "X" : brush === "white" ? "O" : "-";
  editing[i] = editing[i] === want ? "-" : want;
  render(S);
}

function startCells(n) {
  const cells = Array(n * n).fill("-");
  const h = n / 2 - 1;
  cells[h * n + h] = "O"; cells[(h + 1) * n + h + 1] = "O";
  cells[h * n + h + 1] = "X"; cells[(h + 1) * n + h] = "X";
  return cells;
}

// --- what the person does ----------------------------------------------------------------------
function limitFields() {
  const value = Number($("#limit-value").value);
  return $("#limit-kind").value === "depth" ? { depth: value } : { movetime: value };
}

const actions = {
  new: () => send({ type: "new", size: Number($("#size").value), black: $("#black").value,
                    white: $("#white").value, ...limitFields() }),
  apply: () => send({ type: "settings", black: $("#black").value, white: $("#white").value,
                      ...limitFields() }),
  undo: () => send({ type: "undo" }),
  redo: () => send({ type: "redo" }),
  hint: () => send({ type: "hint" }),
  resume: () => send({ type: "resume" }),
  stop: () => send({ type: "stop" }),
  analyze: () => send({ type: "analyze", movetime: Number($("#analysis-ms").value) }),
  save: () => send({ type: "save" }),
  load: () => { const p = $("#load-panel"); p.hidden = !p.hidden; if (!p.hidden) send({ type: "games" }); },
  "load-text": () => send({ type: "load", text: $("#load-text").value }),
  edit: () => (editing ? stopEditing() : startEditing()),
  "edit-clear": () => { editing = Array(boardSize * boardSize).fill("-"); render(S); },
  "edit-start": () => { editing = startCells(boardSize); render(S); },
  "edit-cancel": () => stopEditing(),
  "edit-done": () => {
    const cells = editing.join("");
    stopEditing();
    send({ type: "edit", cells, turn: $("#edit-turn").value });
  },
};

document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-action]");
  if (button && actions[button.dataset.action]) {
    say("");
    actions[button.dataset.action]();
    return;
  }
  const game = event.target.closest("[data-game]");
  if (game) { send({ type: "open", name: game.dataset.game }); return; }
  const item = event.target.closest("#moves li");
  if (item) { send({ type: "goto", ply: Number(item.dataset.ply) }); return; }
  const sq = event.target.closest(".sq");
  if (!sq) return;
  const i = squares.indexOf(sq);
  if (editing) { editSquare(i); return; }
  if (sq.hasAttribute("data-legal")) {
    pendingClick = performance.now();
    say("");
    send({ type: "move", square: sq.dataset.square });
  }
});

$("#graph").addEventListener("click", (event) => {
  if (!S) return;
  const rect = event.currentTarget.getBoundingClientRect();
  const total = Math.max(S.evals.length - 1, 1);
  const ply = Math.round(((event.clientX - rect.left) / rect.width) * total);
  send({ type: "goto", ply: Math.max(0, Math.min(total, ply)) });
});

$("#load-file").addEventListener("change", (event) => {
  const file = event.target.files[0];
  if (!file) return;
  const reader = new FileReader();
  reader.onload = () => send({ type: "load", text: String(reader.result) });
  reader.readAsText(file);
  event.target.value = "";
});

document.addEventListener("keydown", (event) => {
  if (event.target.matches("input, textarea, select")) return;
  if (event.key === "ArrowLeft") send({ type: "undo" });
  else if (event.key === "ArrowRight") send({ type: "redo" });
});

for (let n = 4; n <= 26; n += 2) {
  const option = document.createElement("option");
  option.value = option.textContent = String(n);
  $("#size").append(option);
}
$("#size").value = "8";
connect();
