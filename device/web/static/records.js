// yamscope records page: records, players, game history with a turn-by-turn replay, the
// audit of any entry, dice fairness and the export. Read-only: every request is a GET.
// No framework and no build step, as the table page; charts are inline SVG drawn here.
"use strict";
// boot, $, lang, t, formatNumber and el come from dom.js, loaded first.

const SVG = "http://www.w3.org/2000/svg";

const WORDS = {
  fr: {
    title: "Records", back: "← La table", table: "Table", all_tables: "Toutes les tables",
    tab_records: "Records", tab_players: "Joueurs", tab_history: "Parties", tab_dice: "Dés", tab_export: "Export",
    loading: "Chargement…", nothing: "Aucune partie terminée pour l'instant.",
    games_n: "{0} parties", best_totals: "Meilleurs totaux", marks: "Records par case et par section",
    personal: "Records personnels", player: "Joueur", total: "Total", date: "Date", game: "Partie",
    points: "Points", games: "Parties", wins: "Victoires", average: "Moyenne", best: "Meilleur",
    histogram: "Totaux des joueurs contre l'ordinateur difficile",
    players_line: "Joueurs ({0} parties)", yardstick_line: "Ordinateur difficile ({0} parties seul, options par défaut)",
    no_yardstick: "Pas de référence de l'ordinateur pour ces règles.",
    over_time: "Totaux au fil des parties", feats: "Exploits", feat_yams: "Yams", feat_prime: "Prime",
    feat_prime_yams: "Prime Yam's", harmonies_avg: "Harmonies par partie", computer: "ordi",
    history: "Parties", in_progress: "en cours", winner: "gagnant", more: "Plus de parties",
    final_sheet: "La feuille à la fin", replay: "Rejouer tour par tour", step_n: "{0} / {1}",
    start: "Début", turn_of: "Tour {0} de {1}", undo_step: "Annulation de la dernière case",
    throw_n: "Jet {0}", kept: "gardé", corrected: "corrigé", wrote: "inscrit en {0} : {1} points",
    audit: "Pourquoi ces points ?", audit_of: "{0}, tour {1} : {2}", photo_of: "Photo du jet {0}",
    no_photo: "Pas de photo de ce jet ({0}).", source_camera: "lu par la caméra", source_manual: "dés saisis",
    source_drawn: "tirés par l'appareil", source_computer: "jet de l'ordinateur", source_simulated: "piste simulée",
    source_null: "origine inconnue", read_as: "lu", correction: "{0} : dé n°{1} lu {2}, corrigé en {3}",
    correction_by: "depuis {0}, au tour de {1}", base: "Base", first_throw: "premier jet",
    announced_ok: "{0} annoncé pour {1} : réussi", announced_failed: "{0} annoncé pour {1} : manqué, on marque {2}",
    harmony_dice: "dés n° {0}", equals: "= {0} points", bonus: "prime +{0}", undone: "(case annulée ensuite)",
    dice_written: "Les dés inscrits", dice_from: "le dé n°{0} vient du jet {1}",
    fairness: "Les dés sont-ils équilibrés ?", fairness_help: "Seuls les dés confirmés comptent : ceux d'un jet inscrit sur la feuille ou corrigé par un joueur, lus par la caméra ou saisis (pas ceux tirés par l'appareil).",
    throws_n: "{0} jets", face: "Face", expected: "attendu", p_value: "p", no_dice: "Aucun dé confirmé pour l'instant.",
    export_help: "Télécharger les parties, les tours, les jets et les cases inscrites :",
    not_found: "Introuvable", offline: "Le serveur ne répond pas.", retry: "Réessayer",
  },
  en: {
    title: "Records", back: "← The table", table: "Table", all_tables: "All tables",
    tab_records: "Records", tab_players: "Players", tab_history: "Games", tab_dice: "Dice", tab_export: "Export",
    loading: "Loading…", nothing: "No finished game yet.",
    games_n: "{0} games", best_totals: "Best totals", marks: "Records per box and per section",
    personal: "Personal bests", player: "Player", total: "Total", date: "Date", game: "Game",
    points: "Points", games: "Games", wins: "Wins", average: "Average", best: "Best",
    histogram: "The players' totals against the hard computer",
    players_line: "Players ({0} games)", yardstick_line: "Hard computer ({0} games alone, default options)",
    no_yardstick: "No computer yardstick for these rules.",
    over_time: "Totals game after game", feats: "Feats", feat_yams: "Yams", feat_prime: "Bonus",
    feat_prime_yams: "Yahtzee bonus", harmonies_avg: "Harmonies a game", computer: "computer",
    history: "Games", in_progress: "in progress", winner: "winner", more: "More games",
    final_sheet: "The sheet at the end", replay: "Replay turn by turn", step_n: "{0} / {1}",
    start: "Start", turn_of: "Turn {0} of {1}", undo_step: "The last entry taken back",
    throw_n: "Throw {0}", kept: "kept", corrected: "corrected", wrote: "wrote {0}: {1} points",
    audit: "Why these points?", audit_of: "{0}, turn {1}: {2}", photo_of: "Photo of throw {0}",
    no_photo: "No photo of this throw ({0}).", source_camera: "read by the camera", source_manual: "dice typed in",
    source_drawn: "drawn by the appliance", source_computer: "the computer's throw", source_simulated: "simulated tray",
    source_null: "origin unknown", read_as: "read", correction: "{0}: die no. {1} read {2}, corrected to {3}",
    correction_by: "from {0}, during {1}'s turn", base: "Base", first_throw: "first throw",
    announced_ok: "{0} announced for {1}: made", announced_failed: "{0} announced for {1}: missed, scores {2}",
    harmony_dice: "dice no. {0}", equals: "= {0} points", bonus: "bonus +{0}", undone: "(taken back later)",
    dice_written: "The dice written", dice_from: "die no. {0} comes from throw {1}",
    fairness: "Are the dice fair?", fairness_help: "Only confirmed dice count: those of a throw written on the sheet or corrected by a player, read by the camera or typed in (not those the appliance drew).",
    throws_n: "{0} throws", face: "Face", expected: "expected", p_value: "p", no_dice: "No confirmed die yet.",
    export_help: "Download the games, turns, throws and entries:",
    not_found: "Not found", offline: "The server does not answer.", retry: "Retry",
  },
};
let table = sessionStorage.getItem("yamscope.records.table") || "";

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

const num = (x, digits = 0) => formatNumber(x, digits);
const pct = (x) => new Intl.NumberFormat(locale(), { style: "percent", maximumFractionDigits: 0 }).format(x);
const day = (iso) => (iso ? new Intl.DateTimeFormat(locale(), { dateStyle: "medium" }).format(new Date(iso)) : "");
const when = (iso) => (iso ? new Intl.DateTimeFormat(locale(), { dateStyle: "short", timeStyle: "short" }).format(new Date(iso)) : "");

// -- requests ------------------------------------------------------------------------------
async function get(path) {
  let response;
  try {
    response = await fetch(path, { headers: { Accept: "application/json" } });
  } catch (err) {
    throw new Error(t("offline"));
  }
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function query(params) {
  const pairs = Object.entries(params).filter(([, v]) => v !== null && v !== undefined && v !== "");
  return pairs.length ? `?${new URLSearchParams(pairs)}` : "";
}

// -- routing: #records, #players, #players/NAME, #history, #game/ID, #audit/ID/SEQ,
// #audit/ID/PLAYER/BOX (from the table page's sheet), #dice, #export ---------------------
function route() {
  const parts = location.hash.replace(/^#/, "").split("/").map(decodeURIComponent);
  return { name: parts[0] || "records", args: parts.slice(1) };
}

async function show() {
  const { name, args } = route();
  const tab = { game: "history", audit: "history" }[name] || name;
  for (const a of document.querySelectorAll("#tabs a")) a.classList.toggle("active", a.dataset.tab === tab);
  const view = $("view");
  view.replaceChildren(el("p", { class: "muted", text: t("loading") }));
  const pages = { records: showRecords, players: showPlayers, history: showHistory, game: showGame,
    audit: showAudit, dice: showDice, export: showExport };
  try {
    const nodes = await (pages[name] || showRecords)(args);
    if (route().name === name) view.replaceChildren(...[nodes].flat(Infinity).filter((n) => n));
  } catch (err) {
    view.replaceChildren(el("p", { class: "error-box", id: "error", text: err.message }),
      el("button", { type: "button", onclick: show, text: t("retry") }));
  }
}

function words() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  $("btn-lang").textContent = lang === "fr" ? "EN" : "FR";
}

// -- the records ------------------------------------------------------------------------------
function gameLink(id) {
  return el("a", { href: `#game/${id}`, text: `n° ${id}` });
}

function playerLink(name) {
  return el("a", { href: `#players/${encodeURIComponent(name)}`, text: name });
}

function list(head, rows) {
  return el("div", { class: "scroll" }, el("table", { class: "list" },
    el("thead", {}, el("tr", {}, head.map(([text, cls]) => el("th", { class: cls || null, text })))),
    el("tbody", {}, rows)));
}

async function showRecords() {
  const data = await get(`/api/records${query({ table })}`);
  setTables(data.tables);
  if (!data.rulebooks.length) return el("p", { class: "muted", text: t("nothing") });
  return data.rulebooks.map((rb) => el("section", { class: "card", "data-rules": rb.rules },
    el("h2", { text: `${rb.name} — ${t("games_n", rb.games)}` }),
    el("h3", { text: t("best_totals") }),
    list([["#", "num"], [t("total"), "num"], [t("player")], [t("date")], [t("game")]],
      rb.best.map((b, i) => el("tr", { class: "best" }, el("td", { class: "num", text: i + 1 }),
        el("td", { class: "num", text: num(b.total) }), el("td", {}, playerLink(b.player), tableTag(b.table, data)),
        el("td", { text: day(b.at) }), el("td", {}, gameLink(b.game))))),
    rb.marks && rb.marks.length ? [el("h3", { text: t("marks") }),
      list([[""], [t("points"), "num"], [t("player")], [t("date")], [t("game")]],
        rb.marks.map((m) => el("tr", { class: `mark ${m.kind}`, "data-mark": m.mark }, el("td", { text: m.label }),
          el("td", { class: "num", text: num(m.points) }), el("td", {}, playerLink(m.player)),
          el("td", { text: day(m.at) }), el("td", {}, gameLink(m.game)))))] : null,
    el("h3", { text: t("personal") }),
    list([[t("player")], [t("games"), "num"], [t("wins"), "num"], [t("average"), "num"], [t("best"), "num"]],
      rb.personal.map((p) => el("tr", {}, el("td", {}, playerLink(p.player)),
        el("td", { class: "num", text: p.games }), el("td", { class: "num", text: p.wins }),
        el("td", { class: "num", text: num(p.average, 1) }),
        el("td", { class: "num" }, el("a", { href: `#game/${p.game}`, text: num(p.best) }))))),
    el("h3", { text: t("histogram") }), histogramChart(rb.histogram)));
}

function tableTag(name, data) {
  return data.tables.length > 1 && name ? el("span", { class: "muted", text: ` (${name})` }) : null;
}

function histogramChart(hist) {
  if (!hist) return null;
  const w = 360; const h = 150; const pad = 24;
  const n = hist.counts.length;
  const mine = hist.counts.reduce((a, b) => a + b, 0) || 1;
  const stick = hist.yardstick;
  const theirs = stick ? stick.counts.reduce((a, b) => a + b, 0) || 1 : 1;
  const shares = hist.counts.map((c) => c / mine);
  const yard = stick ? stick.counts.map((c) => c / theirs) : [];
  const top = Math.max(...shares, ...yard, 0.01);
  const bw = (w - 2 * pad) / n;
  const chart = svg("svg", { viewBox: `0 0 ${w} ${h + 20}`, class: "chart histogram", role: "img" });
  chart.append(svg("line", { x1: pad, y1: h, x2: w - pad, y2: h, class: "axis" }));
  shares.forEach((s, i) => {
    const bh = (h - pad) * (s / top);
    chart.append(svg("rect", { x: pad + i * bw + 1, y: h - bh, width: bw - 2, height: bh, class: "bar" }));
  });
  yard.forEach((s, i) => {
    const bh = (h - pad) * (s / top);
    if (bh > 0) chart.append(svg("rect", { x: pad + i * bw + 3, y: h - bh, width: bw - 6, height: bh, class: "bar yard" }));
  });
  for (const i of [0, Math.floor(n / 2), n]) {
    chart.append(svg("text", { x: pad + i * bw, y: h + 14, "text-anchor": "middle" }, num(hist.edges[i])));
  }
  const legend = el("div", { class: "legend" },
    el("span", {}, el("span", { class: "key" }), `${t("players_line", mine)} — ${t("average")} ${num(hist.mean, 1)}`),
    stick ? el("span", {}, el("span", { class: "key yard" }), `${t("yardstick_line", stick.games)} — ${t("average")} ${num(stick.mean, 1)}`)
      : el("span", { class: "muted", text: t("no_yardstick") }));
  return [chart, legend];
}

// -- players ---------------------------------------------------------------------------------
async function showPlayers(args) {
  if (args[0]) return showPlayer(args[0]);
  const data = await get(`/api/records${query({ table })}`);
  setTables(data.tables);
  if (!data.players.length) return el("p", { class: "muted", text: t("nothing") });
  return el("section", { class: "card" }, el("h2", { text: t("tab_players") }),
    list([[t("player")], [t("games"), "num"], [t("wins"), "num"]], data.players.map((p) => el("tr", {},
      el("td", {}, playerLink(p.name), p.computer ? el("small", { class: "muted", text: ` ${t("computer")}` }) : null),
      el("td", { class: "num", text: p.games }), el("td", { class: "num", text: p.wins })))));
}

async function showPlayer(name) {
  const data = await get(`/api/records${query({ table, player: name })}`);
  const person = data.players[0];
  return [el("h2", { text: `${person.name} — ${t("games_n", person.games)}, ${person.wins} ${t("wins").toLowerCase()}` }),
    person.rulebooks.map((rb) => el("section", { class: "card", "data-rules": rb.rules },
      el("h3", { text: rb.name }),
      list([[t("games"), "num"], [t("wins"), "num"], [t("average"), "num"], [t("best"), "num"]],
        [el("tr", {}, el("td", { class: "num", text: rb.games }), el("td", { class: "num", text: rb.wins }),
          el("td", { class: "num", text: num(rb.average, 1) }),
          el("td", { class: "num" }, el("a", { href: `#game/${rb.best_game}`, text: num(rb.best) })))]),
      el("p", { class: "feats" }, `${t("feats")} : `, Object.entries(rb.feats)
        .map(([k, v]) => `${t(`feat_${k}`)} ${pct(v)}`).join(" · "),
      rb.harmonies !== null ? ` · ${t("harmonies_avg")} ${num(rb.harmonies, 2)}` : ""),
      el("h3", { text: t("over_time") }), seriesChart(rb.series)))];
}

function seriesChart(series) {
  if (!series.length) return null;
  const w = 360; const h = 140; const pad = 30;
  const totals = series.map((s) => s[1]);
  const low = Math.min(...totals); const high = Math.max(...totals);
  const span = high - low || 1;
  const x = (i) => pad + (series.length === 1 ? 0 : (i * (w - 2 * pad)) / (series.length - 1));
  const y = (v) => h - 10 - ((v - low) / span) * (h - 30);
  const chart = svg("svg", { viewBox: `0 0 ${w} ${h + 10}`, class: "chart series", role: "img" });
  chart.append(svg("line", { x1: pad, y1: h - 5, x2: w - pad, y2: h - 5, class: "axis" }));
  chart.append(svg("polyline", { points: series.map((s, i) => `${x(i)},${y(s[1])}`).join(" "), class: "line" }));
  series.forEach((s, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(s[1]), r: 3, class: "dot" });
    dot.append(svg("title", {}, `${day(s[0])} : ${num(s[1])}`));
    chart.append(dot);
  });
  chart.append(svg("text", { x: 2, y: y(high) + 4 }, num(high)));
  chart.append(svg("text", { x: 2, y: y(low) + 4 }, num(low)));
  chart.append(svg("text", { x: pad, y: h + 8 }, day(series[0][0])));
  chart.append(svg("text", { x: w - pad, y: h + 8, "text-anchor": "end" }, day(series[series.length - 1][0])));
  return chart;
}

// -- history, one game, its replay -----------------------------------------------------------
let historyShown = 50;

async function showHistory() {
  const data = await get(`/api/records/games${query({ table, limit: historyShown })}`);
  const rows = data.games.map((g) => el("tr", { "data-game": g.id },
    el("td", {}, gameLink(g.id)), el("td", { text: day(g.created) }), el("td", { text: g.rules }),
    el("td", {}, g.players.map((p, i) => [i ? ", " : "", el("span", { class: g.winners.includes(p) ? "winner" : "" },
      `${p}${g.scores[p] !== undefined ? ` ${num(g.scores[p])}` : ""}${g.winners.includes(p) ? " ★" : ""}`)]),
    !g.finished ? el("span", { class: "muted", text: ` (${t("in_progress")})` }) : null)));
  const more = data.total > data.games.length
    ? el("button", { type: "button", text: t("more"), onclick: () => { historyShown += 50; show(); } }) : null;
  return el("section", { class: "card" }, el("h2", { text: `${t("history")} — ${data.total}` }),
    list([[t("game")], [t("date")], [""], [t("tab_players")]], rows), more);
}

function dieTile(die, classes = [], tag = "") {
  const text = typeof die === "string" ? die : die.text;
  const m = /^(\d+)([rw]?)([ft]?)$/.exec(text) || [];
  const colour = { r: "red", w: "white" }[m[2]] || "plain";
  const finish = { f: "frosted", t: "transparent" }[m[3]] || "";
  return el("span", { class: ["die", colour, finish, ...classes].join(" "), title: text },
    el("span", { class: "value", text: m[1] || text }), el("span", { class: "tag", text: tag }));
}

function sheetTable(state, cells, totals, gameId, highlight) {
  const players = state.players.map((p) => p.name);
  const head = el("thead", {}, el("tr", {}, el("th", { scope: "col" }), players.map((p) => el("th", { scope: "col", class: "player", text: p }))));
  const body = state.sheet.rows.map((row) => {
    if (row.kind === "section") return el("tr", { class: "section" }, el("th", { colspan: players.length + 1, text: row.label }));
    if (row.kind === "total") {
      return el("tr", { class: `total ${row.key}` }, el("th", { scope: "row", text: row.label }),
        players.map((p) => el("td", { text: totals(p, row.key) })));
    }
    return el("tr", { class: "box", "data-box": row.id }, el("th", { scope: "row", text: row.label }),
      players.map((p) => {
        const points = cells[p] ? cells[p][row.id] : undefined;
        if (points === undefined || points === null) return el("td", {});
        const now = highlight && highlight.player === p && highlight.box === row.id;
        return el("td", {
          class: `filled${now ? " now" : ""}`, "data-player": p, text: points === 0 ? "—" : String(points),
          onclick: () => { location.hash = `#audit/${gameId}/${encodeURIComponent(p)}/${encodeURIComponent(row.id)}`; },
        });
      }));
  });
  return el("div", { class: "sheet-scroll" }, el("table", { class: "sheet" }, head, el("tbody", {}, body)));
}

function finalCells(state) {
  const out = {};
  for (const s of state.sheets) out[s.player] = s.cells;
  return out;
}

async function showGame(args) {
  const id = Number(args[0]);
  const data = await get(`/api/records/games/${id}`);
  const state = data.state;
  const finalTotals = (p, key) => {
    const sheet = state.sheets.find((s) => s.player === p);
    const found = sheet && sheet.totals.find((x) => x.key === key);
    return found ? num(found.points) : "";
  };
  const title = el("h2", { text: `${state.name} — ${t("game")} n° ${id} — ${day(data.created)}${data.table ? ` (${data.table})` : ""}` });
  const replay = el("section", { class: "card replay" });
  let step = data.steps.length;
  const drawReplay = () => replay.replaceChildren(...replayView(data, step, (k) => { step = k; drawReplay(); }));
  drawReplay();
  return [title, el("section", { class: "card" }, el("h3", { text: t("final_sheet") }),
    sheetTable(state, finalCells(state), finalTotals, id, null)), replay];
}

function replayView(data, step, go) {
  const steps = data.steps;
  const cells = {};
  const written = [];
  for (const s of steps.slice(0, step)) {
    if (s.kind === "score") {
      cells[s.player] = { ...(cells[s.player] || {}), [s.box]: s.points };
      written.push(s);
    } else {
      const last = written.pop();
      if (last && cells[last.player]) delete cells[last.player][last.box];
    }
  }
  const current = steps[step - 1];
  const scores = current ? current.scores : {};
  const totals = (p, key) => (key === "total" && scores[p] !== undefined ? num(scores[p]) : "");
  const bar = el("div", { class: "replay-bar" },
    el("button", { type: "button", id: "replay-first", text: "⏮", onclick: () => go(0), disabled: step === 0 }),
    el("button", { type: "button", id: "replay-prev", text: "◀", onclick: () => go(step - 1), disabled: step === 0 }),
    el("output", { id: "replay-step", text: t("step_n", step, steps.length) }),
    el("button", { type: "button", id: "replay-next", text: "▶", onclick: () => go(step + 1), disabled: step >= steps.length }),
    el("button", { type: "button", id: "replay-last", text: "⏭", onclick: () => go(steps.length), disabled: step >= steps.length }));
  const highlight = current && current.kind === "score" ? current : null;
  return [el("h3", { text: t("replay") }), bar, current ? turnView(data.id, current) : el("p", { class: "muted", text: t("start") }),
    sheetTable(data.state, cells, totals, data.id, highlight)];
}

function turnView(gameId, s) {
  if (s.kind === "undo") return el("p", { class: "turn", text: t("undo_step") });
  return el("div", { class: "turn-view" },
    el("p", { class: "turn", text: t("turn_of", s.turn, s.player) }),
    s.throws.map((th) => el("div", { class: "throw" },
      el("span", { class: "muted", text: `${t("throw_n", th.throw ?? "")} : ` }),
      el("span", { class: "dice-row" }, th.dice.map((d, i) => dieTile(d, th.kept.includes(i) ? ["aside"] : [], th.kept.includes(i) ? t("kept") : ""))),
      th.corrections.map((c) => el("p", { class: "muted", text: c.changed.map((ch) => t("correction", when(c.at), ch.place + 1, ch.from, ch.to)).join(" ; ") })))),
    el("p", {}, el("a", { href: `#audit/${gameId}/${s.seq}`, text: `${t("wrote", s.label, s.points)} — ${t("audit")}` })));
}

// -- the audit -------------------------------------------------------------------------------
async function showAudit(args) {
  const id = Number(args[0]);
  const params = args.length >= 3 ? { player: args[1], box: args[2] } : { seq: args[1] };
  const a = await get(`/api/records/games/${id}/audit${query(params)}`);
  const out = [el("h2", { id: "audit-title", text: `${t("audit")} ${t("audit_of", a.player, a.turn, a.label)}${a.undone ? ` ${t("undone")}` : ""}` }),
    el("p", {}, el("a", { href: `#game/${id}`, text: `← ${a.name}, ${t("game")} n° ${id}` }))];
  out.push(el("section", { class: "card" }, el("h3", { text: t("dice_written") }),
    el("div", { class: "dice-row", id: "audit-dice" }, a.dice.map((d, i) => dieTile(d, a.used.includes(i) ? ["used"] : []))),
    el("ul", { class: "breakdown", id: "breakdown" }, breakdown(a))));
  a.throws.forEach((th, i) => out.push(throwCard(a, th, i)));
  return out;
}

function breakdown(a) {
  const items = [el("li", {}, el("span", { class: "x", text: num(a.base) }), `${t("base")} — ${a.why}`)];
  for (const m of a.multipliers) {
    const dice = m.dice.length ? ` (${t("harmony_dice", m.dice.map((i) => i + 1).join(", "))})` : "";
    items.push(el("li", { class: "multiplier" }, el("span", { class: "x", text: `× ${m.x}` }), `${m.why}${dice}`));
  }
  if (a.announced) {
    items.push(el("li", { class: "announced" }, a.announced.success
      ? t("announced_ok", a.announced.throw, a.announced.label)
      : t("announced_failed", a.announced.throw, a.announced.label, num(a.points))));
  }
  items.push(el("li", { class: "total" }, t("equals", num(a.points)), a.bonus ? ` + ${t("bonus", a.bonus)}` : ""));
  return items;
}

function throwCard(a, th, index) {
  const source = t(`source_${th.source}`);
  const card = el("section", { class: "card throw-card", "data-throw": th.throw_id },
    el("h3", { text: `${t("throw_n", th.throw)} — ${source} — ${when(th.at)}` }));
  const from = a.origin.map((o, p) => (o === index ? p : null)).filter((p) => p !== null);
  const readAs = th.dice;
  const finalDice = th.corrections.length ? th.corrections[th.corrections.length - 1].dice : th.dice;
  if (th.photo) card.append(photo(th, readAs, finalDice));
  else card.append(el("p", { class: "muted no-photo", text: t("no_photo", source) }));
  card.append(el("div", { class: "dice-row" }, readAs.map((d, i) => dieTile(d, th.kept.includes(i) ? ["aside"] : [],
    th.kept.includes(i) ? t("kept") : finalDice[i] !== d ? `→${finalDice[i]}` : ""))));
  for (const c of th.corrections) {
    for (const ch of c.changed) {
      card.append(el("p", { class: "correction", text: `${t("correction", when(c.at), ch.place + 1, ch.from, ch.to)} — ${t("correction_by", c.client || "?", c.during)}` }));
    }
  }
  if (from.length && a.throws.length > 1) card.append(el("p", { class: "muted", text: from.map((p) => t("dice_from", p + 1, th.throw)).join(" ; ") }));
  return card;
}

// the photo with each die drawn where the camera read it, as read and as corrected
function photo(th, readAs, finalDice) {
  const box = el("figure", { class: "photo" });
  const img = el("img", { src: `/api/records/throws/${th.throw_id}/photo.jpg`, alt: t("photo_of", th.throw) });
  box.append(img);
  const reading = th.reading;
  if (reading && reading.size) {
    const [w, h] = reading.size;
    const over = svg("svg", { viewBox: `0 0 ${w} ${h}`, preserveAspectRatio: "none", class: "overlay" });
    reading.dice.forEach((d, place) => {
      if (!d) return;
      const [x0, y0, x1, y1] = d.box;
      const changed = finalDice[place] !== readAs[place];
      over.append(svg("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, class: changed ? "corrected" : "" }));
      const label = `${place + 1}: ${readAs[place]}${changed ? `→${finalDice[place]}` : ""}`;
      over.append(svg("text", { x: x0, y: Math.max(30, y0 - 6), class: changed ? "corrected" : "" }, label));
    });
    box.append(over);
  }
  return box;
}

// -- dice fairness ---------------------------------------------------------------------------
async function showDice() {
  const data = await get(`/api/records/fairness${query({ table })}`);
  const said = data.said[lang];
  const alarm = data.groups.some((g) => g.enough) && !/^(Aucun|No die)/.test(said);
  const out = [el("h2", { text: t("fairness") }), el("p", { class: `said${alarm ? " alarm" : ""}`, id: "fairness-said", text: said }),
    el("p", { class: "muted", text: t("fairness_help") })];
  if (!data.groups.length) out.push(el("p", { class: "muted", text: t("no_dice") }));
  for (const g of data.groups) {
    out.push(el("section", { class: "card die-group" },
      el("h3", { text: `${g.name[lang]} — ${t("throws_n", num(g.throws))} — χ² ${num(g.chi2, 2)}, ${t("p_value")} = ${num(g.p, 3)}` }),
      facesChart(g.counts)));
  }
  return out;
}

function facesChart(counts) {
  const w = 360; const h = 120; const pad = 20;
  const n = counts.length;
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / n;
  const top = Math.max(...counts, expected, 1);
  const bw = (w - 2 * pad) / n;
  const chart = svg("svg", { viewBox: `0 0 ${w} ${h + 18}`, class: "chart faces", role: "img" });
  counts.forEach((c, i) => {
    const bh = (h - 10) * (c / top);
    const bar = svg("rect", { x: pad + i * bw + 2, y: h - bh, width: bw - 4, height: bh, class: "bar" });
    bar.append(svg("title", {}, `${i + 1} : ${c}`));
    chart.append(bar);
    chart.append(svg("text", { x: pad + (i + 0.5) * bw, y: h + 14, "text-anchor": "middle" }, String(i + 1)));
  });
  const ey = h - (h - 10) * (expected / top);
  chart.append(svg("line", { x1: pad, y1: ey, x2: w - pad, y2: ey, class: "expected" }));
  chart.append(svg("line", { x1: pad, y1: h, x2: w - pad, y2: h, class: "axis" }));
  return chart;
}

// -- export ------------------------------------------------------------------------------------
function showExport() {
  const kinds = ["games", "turns", "throws", "entries"];
  return el("section", { class: "card export-links" }, el("h2", { text: t("tab_export") }),
    el("p", { text: t("export_help") }),
    kinds.map((k) => el("p", {}, el("strong", { text: `${k} : ` }),
      ["csv", "json"].map((f) => el("a", { href: `/api/export/${k}.${f}${query({ table })}`, download: `${k}.${f}`, text: f.toUpperCase() })))));
}

// -- the table filter (a club's tables) ------------------------------------------------------
let knownTables = [];
function setTables(tables) {
  knownTables = tables;
  const box = $("table-filter-box");
  box.hidden = tables.length < 2;
  const select = $("table-filter");
  select.replaceChildren(el("option", { value: "", text: t("all_tables") }),
    ...tables.map((name) => el("option", { value: name, text: name || "—" })));
  select.value = table;
}

function wire() {
  window.addEventListener("hashchange", show);
  $("btn-lang").addEventListener("click", () => {
    lang = lang === "fr" ? "en" : "fr";
    localStorage.setItem("yamscope.lang", lang);
    words();
    setTables(knownTables);
    show();
  });
  $("table-filter").addEventListener("change", (event) => {
    table = event.target.value;
    sessionStorage.setItem("yamscope.records.table", table);
    show();
  });
}

wire();
words();
show();
