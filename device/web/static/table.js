// yamscope table page: draws the state the server pushes, sends one request per tap.
// No framework and no build step: the appliance serves this file as it is, offline.
"use strict";
// boot, $, lang, t, formatNumber and el come from dom.js, loaded first.

// -- words ---------------------------------------------------------------------------------
const WORDS = {
  fr: {
    undo: "↶ Annuler", new_game: "Nouvelle partie", throw: "Lancer", throw_n: "Lancer ({0}/{1})",
    no_game: "Pas de partie en cours.", start: "Commencer", cancel: "Annuler", ok: "Valider",
    rules: "Règles", options: "Options", players: "Joueurs", add_player: "Ajouter un joueur",
    remove: "Retirer", human: "Humain", facile: "Ordi facile", difficile: "Ordi difficile",
    name: "Nom", player_n: "Joueur {0}", turn_of: "Au tour {0}", throw_no: "jet {0}/{1}",
    first_throw: "Lancez les dés.", computer_plays: "{0} joue…",
    suggestions: "Cases possibles", show_all: "Toutes les cases ({0})", show_less: "Moins de cases",
    advice: "Conseil", advice_keep: "garder {0} et relancer", advice_keep_none: "tout relancer",
    advice_box: "inscrire en {0} ({1} pts)", expected: "espérance {0} points",
    advice_announce: "annoncer le {0} pour {1} (garder {2})", win_chance: "{0} % de chances de gagner",
    advice_pending: "Conseil : calcul…", announce: "Annoncer le {0}",
    announce_title: "Annoncer le {0} pour :", announced: "{0} annoncé pour {1} : relancez.",
    must_throw: "Relancez : le jet annoncé reste à faire.",
    game_over: "Partie terminée.", winner: "{0} gagne avec {1} points !",
    tie: "Égalité : {0}, avec {1} points.", recent: "Derniers coups", nothing_yet: "Aucun coup.",
    correct_die: "Corriger le dé", red: "rouge", white: "blanc", frosted: "givré",
    transparent: "transparent", kept: "gardé", edit: "corriger", advised: "conseillé",
    pin_title: "Code PIN", pin_help: "Le code de la table est demandé pour jouer depuis cet écran.",
    pin_strength: "PIN de {0} chiffres : au rythme d'essais permis, le deviner prendrait {1} en moyenne.",
    pin_common: "Ce PIN est parmi les premiers essayés (suite, répétition, année) : choisissez-en un autre.",
    hours: "{0} h", days: "{0} jours", years: "{0} ans",
    records_full: "Les scores n'ont pas pu être enregistrés : le disque est plein. Rien n'a changé ; libérez de la place, puis rejouez.",
    online: "connecté", offline: "hors ligne", connection: "connexion au serveur",
    computer: "ordi", closed: "fermée", confirm_new: "Abandonner la partie en cours ?",
    pts: "pts", total: "Total", column_total: "Total colonne", cell_preview: "ce jet : {0}",
    computer_error: "L'ordinateur n'a pas pu jouer : {0}", crossed: "barrée",
    camera: "caméra", cam_live: "caméra active", cam_starting: "caméra : démarrage…",
    cam_stalled: "caméra : plus d'image", cam_reopening: "caméra : reconnexion…",
    cam_failed: "caméra en panne : {0}", cam_stopped: "caméra arrêtée",
    tray_waiting: "Lancez les dés dans la piste : la caméra les lit.",
    camera_starting: "La caméra démarre : un instant avant de lancer.",
    unsure: "à vérifier", check_dice: "Vérifiez les dés marqués : touchez « ✎ Corriger » puis le dé.",
    correct: "✎ Corriger", correct_which: "✎ Touchez le dé",
    skip: "Passer ⏭", reading: "Lecture des dés…",
    round: "tour {0}/{1}", round_open: "tour {0}", bonus_needed: "encore {0}",
    bonus_needed_title: "points encore à faire dans le haut pour la prime", replay: "Rejouer",
    undone: "Annulé : {0}.", undone_correction: "Correction annulée : {0} redevient {1}.", undone_computers: "{0} et {1} coup(s) de l'ordinateur", computer_photo: "Le jet de {0} sur la piste",
    calibrate: "Calibrer (piste vide)",
    not_calibrated: "Piste non calibrée : videz-la, puis touchez « Calibrer ».",
    calibrated: "Calibrée : caméra de {0}° ({1}), dés de {2} px.",
    fov_camera: "dit par la caméra", fov_configuration: "réglage", fov_default: "par défaut",
    fov_file: "fichier de calibration",
    calibration_done: "Piste calibrée.", light_good: "Lumière bonne.",
    calibrate_anyway: "Le lecteur voit {0} dé(s) sur la piste : sortez-les d'abord. Calibrer quand même (si ce ne sont pas des dés) ?",
    confirm_calibrate: "Calibrer sur ce que la caméra voit maintenant ? La piste doit être vide.",
    lens_too_wide: "Objectif plus large que ceux appris (75° au plus) : les dés près du bord seront moins bien lus.",
    felt_cut: "La piste semble sortir de l'image ({0}) : si la caméra n'en voit pas le bord, un dé peut y être à moitié hors de vue ; déplacez ou montez-la.",
    side_left: "à gauche", side_top: "en haut", side_right: "à droite", side_bottom: "en bas",
    dice_seen: "Le lecteur voit {0} dé(s) sur cette image : un dé resté sur la piste doit en sortir (puis recalibrer) ; tout le reste fait désormais partie de la piste vide et ne sera pas lu comme un dé.",
    light_dark: "Trop sombre : le feutre est à {0} % de la pleine échelle (il faut {1} % ou plus).",
    light_glare: "Reflets : {0} % de la piste est blanc saturé (il faut {1} % ou moins).",
    light_uneven: "Lumière inégale : le plus clair du feutre est {0} % plus clair que le plus sombre (il faut {1} % ou moins).",
    records: "Records", audit_box: "pourquoi ces points ?", owner: "Propriétaire : mise en route, réglages, état",
    storage_down: "La base des scores est injoignable : aucune action n'est acceptée tant qu'elle ne l'est pas, et la partie reprendra où elle en était dès son retour.",
  },
  en: {
    undo: "↶ Undo", new_game: "New game", throw: "Throw", throw_n: "Throw ({0}/{1})",
    no_game: "No game in progress.", start: "Start", cancel: "Cancel", ok: "OK",
    rules: "Rules", options: "Options", players: "Players", add_player: "Add a player",
    remove: "Remove", human: "Human", facile: "Computer (easy)", difficile: "Computer (hard)",
    name: "Name", player_n: "Player {0}", turn_of: "{0}'s turn", throw_no: "throw {0}/{1}",
    first_throw: "Throw the dice.", computer_plays: "{0} is playing…",
    suggestions: "Possible boxes", show_all: "All boxes ({0})", show_less: "Fewer boxes",
    advice: "Advice", advice_keep: "keep {0} and throw again", advice_keep_none: "throw all again",
    advice_box: "write in {0} ({1} pts)", expected: "expected {0} points",
    advice_announce: "announce the {0} for {1} (keep {2})", win_chance: "{0} % chance to win",
    advice_pending: "Advice: computing…", announce: "Announce the {0}",
    announce_title: "Announce the {0} for:", announced: "{0} announced for {1}: throw again.",
    must_throw: "Throw again: the announced throw is still to come.",
    game_over: "Game over.", winner: "{0} wins with {1} points!",
    tie: "Tie: {0}, with {1} points.", recent: "Last turns", nothing_yet: "Nothing yet.",
    correct_die: "Correct the die", red: "red", white: "white", frosted: "frosted",
    transparent: "transparent", kept: "kept", edit: "correct", advised: "advised",
    pin_title: "PIN", pin_help: "The table's PIN is needed to play from this screen.",
    pin_strength: "A {0}-digit PIN: at the pace of tries allowed, guessing it would take {1} on average.",
    pin_common: "This PIN is among the first anyone tries (a run, a repeat, a year): choose another.",
    hours: "{0} h", days: "{0} days", years: "{0} years",
    records_full: "The records could not be written: the disk is full. Nothing changed; free some space, then play again.",
    online: "online", offline: "offline", connection: "connection to the server",
    computer: "computer", closed: "closed", confirm_new: "Abandon the game in progress?",
    pts: "pts", total: "Total", column_total: "Column total", cell_preview: "this throw: {0}",
    computer_error: "The computer could not play: {0}", crossed: "crossed",
    camera: "camera", cam_live: "camera live", cam_starting: "camera: starting…",
    cam_stalled: "camera: no picture", cam_reopening: "camera: reconnecting…",
    cam_failed: "camera failed: {0}", cam_stopped: "camera stopped",
    tray_waiting: "Throw the dice in the tray: the camera reads them.",
    camera_starting: "The camera is starting: a moment before you throw.",
    unsure: "check", check_dice: "Check the marked dice: tap “✎ Correct”, then the die.",
    correct: "✎ Correct", correct_which: "✎ Tap the die",
    skip: "Skip ⏭", reading: "Reading the dice…",
    round: "turn {0}/{1}", round_open: "turn {0}", bonus_needed: "{0} to go",
    bonus_needed_title: "points still to make in the upper boxes for the bonus", replay: "Play again",
    undone: "Undone: {0}.", undone_correction: "Correction undone: {0} is {1} again.", undone_computers: "{0} and {1} computer turn(s)", computer_photo: "{0}'s throw on the tray",
    calibrate: "Calibrate (empty tray)",
    not_calibrated: "Tray not calibrated: empty it, then tap “Calibrate”.",
    calibrated: "Calibrated: camera of {0}° ({1}), dice of {2} px.",
    fov_camera: "told by the camera", fov_configuration: "setting", fov_default: "default",
    fov_file: "calibration file",
    calibration_done: "Tray calibrated.", light_good: "Light is good.",
    calibrate_anyway: "The reader sees {0} dice on the tray: take them out first. Calibrate anyway (if they are not dice)?",
    confirm_calibrate: "Calibrate on what the camera sees now? The tray must be empty.",
    lens_too_wide: "A lens wider than the models learned (75° at most): dice near the wall will be read less well.",
    felt_cut: "The felt seems to run out of the picture ({0}): if the camera does not see the tray's wall there, a die can lie half out of view; move or raise the camera.",
    side_left: "left", side_top: "top", side_right: "right", side_bottom: "bottom",
    dice_seen: "The reader sees {0} dice in this picture: a die left in the tray must come out (then calibrate again); anything else there is now part of the empty tray and will not be read as a die.",
    light_dark: "Too dark: the felt is at {0} % of full scale (want {1} % or more).",
    light_glare: "Glare: {0} % of the tray is clipped white (want {1} % or less).",
    light_uneven: "Uneven light: the brightest part of the felt is {0} % lighter than the darkest (want {1} % or less).",
    records: "Records", audit_box: "why these points?", owner: "Owner: setup, settings, health",
    storage_down: "The records database cannot be reached: no action is taken until it is back, and the game will resume where it was.",
  },
};

// The server sends the engine's French with its English beside it (KEY_en), and its own
// English messages with their French (KEY_fr): the page shows the one of its language.
function tr(item, key) {
  const english = item && item[`${key}_en`];
  return lang === "en" && english != null ? english : item && item[key];
}

function said(item, key) {
  const french = item && item[`${key}_fr`];
  return lang === "fr" && french != null ? french : item && item[key];
}

const num = (x, digits = 1) => formatNumber(x, digits);

// « Au tour de Bruno », « au tour d'Alice »: French elides « de » before a vowel or a mute h.
function whose(name) {
  if (lang !== "fr") return name;
  return /^[aeiouyhàâäéèêëîïôöùûü]/i.test(name) ? `d'${name}` : `de ${name}`;
}

// -- state -----------------------------------------------------------------------------------
let state = boot.state;
let keep = new Set();
let keepFor = null;
// The dice this screen set aside that the server has not confirmed yet: they win over the
// server's older list until the last tap is answered (else taps a second apart undo each other).
let keepWanted = null;
let keepSending = false;
let correcting = false;
// « Lancer » tapped on a camera table: the moment it was tapped in, until the dice are read
let readingFor = null;
let readingTimer = null; // « ✎ Corriger » pressed: the next die tapped opens its editor
let showAll = false;
let pin = sessionStorage.getItem("yamscope.pin");
let pending = null; // a request waiting for the PIN

function isNewer(next) {
  if (!state || next.instance !== state.instance) return true;
  return next.version >= state.version;
}

function apply(next) {
  if (!next || !isNewer(next)) return;
  state = next;
  render();
}

// -- requests --------------------------------------------------------------------------------
// ``ask``: called with a refusal's body; true when it was handled there (no toast).
async function post(path, body, ask = null) {
  const headers = { "Content-Type": "application/json", "X-Yamscope-Token": boot.token };
  if (boot.pin && pin) headers["X-Yamscope-Pin"] = pin;
  let response;
  try {
    response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
  } catch (err) {
    toast(t("offline"));
    return null;
  }
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (response.ok) {
    apply(data);
    return data;
  }
  if (response.status === 507) { // the disk is full: nothing changed, play on once freed
    toast(t("records_full"), 15000);
    return null;
  }
  if (response.status === 403 && boot.pin && /PIN/.test(data.error || "")) {
    pin = null;
    sessionStorage.removeItem("yamscope.pin");
    pending = () => post(path, body);
    askPin();
    return null;
  }
  if (!(ask && ask(data))) toast(said(data, "error") || response.statusText);
  return null;
}

function askPin() {
  $("pin-input").value = "";
  renderPinStrength();
  $("dlg-pin").showModal();
}

// how long guessing the PIN takes at the server's brake; whether it is a common one is
// told only to the table's own screen (the server leaves it null for others)
function renderPinStrength() {
  const strength = boot.pin_strength;
  const line = $("pin-strength");
  line.hidden = !strength;
  if (!strength) return;
  const hours = strength.hours;
  const time = hours < 48 ? t("hours", Math.round(hours))
    : hours < 24 * 730 ? t("days", Math.round(hours / 24)) : t("years", Math.round(hours / 24 / 365));
  line.textContent = t("pin_strength", strength.digits, time) + (strength.common ? ` ${t("pin_common")}` : "");
  line.className = strength.common ? "hint error" : "hint";
}

let toastTimer = null;
function toast(message, ms = 5000) {
  const box = $("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, ms);
}

// -- push --------------------------------------------------------------------------------------
function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("state", (event) => {
    setConn(true);
    apply(JSON.parse(event.data));
  });
  source.addEventListener("open", () => setConn(true));
  source.addEventListener("error", () => setConn(false));
}

function setConn(online) {
  const conn = $("conn");
  conn.textContent = online ? "●" : `● ${t("offline")}`;
  conn.className = online ? "conn online" : "conn offline";
  conn.title = online ? t("online") : t("offline");
}

// -- drawing -----------------------------------------------------------------------------------
function render() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  $("btn-lang").textContent = lang === "fr" ? "EN" : "FR";
  $("link-owner").title = t("owner");
  const game = state.game;
  $("no-game").hidden = !!game;
  $("table").hidden = !game;
  $("game-name").textContent = game ? tr(game, "name") : "";
  $("btn-undo").disabled = !game
    || !(game.corrected || game.recent.some((r) => !isComputer(game, r.player)));
  renderCamera();
  if (!game) {
    $("sheet").replaceChildren();
    $("banner").hidden = true;
    return;
  }
  syncKeep(game);
  syncServerKeep();
  renderBanner(game);
  renderTurn(game);
  renderDice(game);
  renderActions(game);
  renderAdvice(game);
  renderPhoto(game);
  renderSuggestions(game);
  renderRecent(game);
  renderSheet(game);
}

// -- the camera: its state in the bar, and the live picture polled while it is shown ----------
const LIVE_MS = 700;
let liveTimer = null;

function renderCamera() {
  const camera = state.camera;
  const badge = $("cam");
  badge.hidden = !camera;
  $("live").hidden = !camera;
  if (!camera) return;
  const words = { live: "cam_live", starting: "cam_starting", stalled: "cam_stalled",
    reopening: "cam_reopening", failed: "cam_failed", stopped: "cam_stopped" };
  badge.textContent = t(words[camera.state] || "camera", camera.error || "");
  badge.className = `cam ${camera.state}`;
  badge.title = [camera.source, camera.error].filter(Boolean).join(" — ");
  renderCalibration(camera.calibration);
  if (!liveTimer) liveTimer = setInterval(refreshLive, LIVE_MS);
}

// what the camera was calibrated with, and what to change in the light
function lightAdvice(calibration) {
  const percent = (x) => num(x * 100, 1);
  return calibration.light.map((p) => t(`light_${p.problem}`, percent(p.measured), percent(p.limit)));
}

function calibrationWarnings(calibration) {
  const seen = calibration.dice_seen || [];
  const lens = calibration.wider_than_trained ? ` ${t("lens_too_wide")}` : "";
  return lens + feltCut(calibration) + (seen.length ? ` ${t("dice_seen", seen.length)}` : "");
}

// the sides of the picture the felt runs out of: the camera should see the walls all round
function feltCut(calibration) {
  const sides = (calibration.cut_off || []).map((side) => t(`side_${side}`));
  return sides.length ? ` ${t("felt_cut", sides.join(", "))}` : "";
}

function renderCalibration(calibration) {
  const text = $("calibration-text");
  if (!calibration) {
    text.textContent = t("not_calibrated");
    $("light-advice").hidden = true;
    return;
  }
  text.textContent = t("calibrated", num(calibration.field_of_view, 1),
    t(`fov_${calibration.field_of_view_from}`), Math.round(calibration.die_side))
    + calibrationWarnings(calibration);
  // written out, not in a tooltip: a touch screen has no hover
  const advice = lightAdvice(calibration);
  $("light-advice").replaceChildren(...advice.map((line) => el("li", { text: line })));
  $("light-advice").hidden = !advice.length;
}

async function calibrate() {
  if (!window.confirm(t("confirm_calibrate"))) return;
  let again = false;
  const inView = (data) => {
    if (!Array.isArray(data.dice_seen)) return false;
    again = window.confirm(t("calibrate_anyway", data.dice_seen.length));
    return true;
  };
  let result = await post("/api/calibrate", {}, inView);
  if (!result && again) result = await post("/api/calibrate", { anyway: true });
  const calibration = result && result.camera && result.camera.calibration;
  if (!calibration) return;
  const advice = calibration.light.length ? lightAdvice(calibration).join(" ") : t("light_good");
  toast(`${t("calibration_done")}${calibrationWarnings(calibration)} ${advice}`);
}

function refreshLive() {
  if (document.hidden || !state.camera) return;
  const img = $("live-img");
  if (img.dataset.loading) return; // never more than one picture in flight per screen
  img.dataset.loading = "1";
  const next = new Image();
  next.onload = () => { img.src = next.src; delete img.dataset.loading; };
  next.onerror = () => { delete img.dataset.loading; };
  next.src = `/api/live.jpg?t=${Date.now()}`;
}

function isComputer(game, name) {
  const p = game.players.find((x) => x.name === name);
  return !!(p && p.computer);
}

function syncKeep(game) {
  const key = [state.instance, game.id, game.turn, game.throw, game.player].join(":");
  if (key === keepFor) return;
  keepFor = key;
  keepWanted = null;
  correcting = false;
  keep = new Set((game.dice || []).flatMap((d, i) => (d.kept ? [i] : [])));
  showAll = false;
}

function syncServerKeep() {
  // With a camera the server holds the dice set aside: every screen shows the same ones.
  if (keepWanted) keep = new Set(keepWanted);
  else if (Array.isArray(state.keep)) keep = new Set(state.keep);
}

function renderBanner(game) {
  const banner = $("banner");
  let text = null;
  let kind = "info";
  if (state.storage && state.storage.error) { // the records cannot be written: say so first
    text = t("storage_down");
    kind = "error";
  } else if (game.finished) {
    const best = game.winners.length ? game.scores[game.winners[0]] : 0;
    text = `${t("game_over")} ` + (game.winners.length > 1
      ? t("tie", game.winners.join(", "), num(best, 0))
      : t("winner", game.winners[0], num(best, 0)));
    kind = "win";
  } else if (state.computer_error) {
    text = t("computer_error", said(state, "computer_error"));
    kind = "error";
  } else if (state.camera && state.camera.message) {
    text = said(state.camera, "message");
    kind = "error";
  } else if ((state.unsure || []).length) {
    text = t("check_dice");
    kind = "error";
  } else if (game.announced) {
    text = t("announced", tr(game, "announced_throw"), label(game, game.announced));
  }
  banner.hidden = !text;
  banner.textContent = text || "";
  banner.title = text || "";
  banner.className = `banner ${kind}`;
  banner.onclick = () => banner.classList.toggle("open"); // the whole message, on a low screen
  if (game.finished) {
    banner.append(" ", el("button", { type: "button", id: "btn-replay", class: "primary", text: t("replay"), onclick: replay }));
  }
}

function label(game, box) {
  const row = game.sheet.rows.find((r) => r.kind === "box" && r.id === box);
  const col = (game.sheet.columns || []).find((c) => c.id === box);
  return tr(row, "label") || tr(col, "label") || box;
}

function renderTurn(game) {
  const turn = $("turn");
  if (game.finished) {
    turn.textContent = "";
    return;
  }
  const who = game.human_turn ? t("turn_of", whose(game.player)) : t("computer_plays", game.player);
  const parts = [who];
  if (game.round) parts.push(game.rounds ? t("round", game.round, game.rounds) : t("round_open", game.round));
  if (game.throw) parts.push(t("throw_no", game.throw, game.max_throws));
  else if (game.human_turn) parts.push(t("first_throw"));
  turn.textContent = parts.join(" — ");
}

function adviceDice() {
  const advice = state.advice;
  if (!advice || !advice.best || !["keep", "announce"].includes(advice.best.action)) return new Set();
  return new Set(advice.best.dice || []);
}

function renderDice(game) {
  const box = $("dice");
  const advised = adviceDice();
  const playing = game.human_turn && !game.finished;
  const dice = (game.dice || []).map((die, i) => {
    const classes = ["die", game.kind, die.colour || "plain", die.finish || ""];
    const unsure = (state.unsure || []).includes(i);
    if (keep.has(i)) classes.push("kept");
    if (advised.has(i)) classes.push("advised");
    if (unsure) classes.push("unsure");
    const tag = correcting ? "✎" : keep.has(i) ? t("kept") : unsure ? t("unsure")
      : advised.has(i) ? t("advised") : "";
    const button = el("button", {
      type: "button",
      class: classes.join(" "),
      "aria-pressed": keep.has(i) ? "true" : "false",
      "data-index": i,
      title: [die.colour && t(die.colour), die.finish && t(die.finish)].filter(Boolean).join(", "),
      disabled: !playing,
    }, el("span", { class: "value", text: die.value }), el("span", { class: "tag", text: tag }));
    longPress(button, () => (correcting ? editDie(i) : toggleKeep(i)), () => editDie(i));
    return button;
  });
  box.replaceChildren(...dice);
  box.className = `dice n${(game.dice || []).length || game.dice_count}${correcting ? " correcting" : ""}`;
}

function longPress(node, onTap, onLong) {
  let timer = null;
  let long = false;
  node.addEventListener("pointerdown", () => {
    long = false;
    timer = setTimeout(() => { long = true; onLong(); }, 550);
  });
  const stop = () => clearTimeout(timer);
  node.addEventListener("pointerup", stop);
  node.addEventListener("pointerleave", stop);
  node.addEventListener("pointercancel", stop);
  node.addEventListener("contextmenu", (event) => event.preventDefault());
  node.addEventListener("click", () => { if (!long) onTap(); long = false; });
}

function toggleKeep(i) {
  const next = new Set(keep);
  if (next.has(i)) next.delete(i);
  else next.add(i);
  keep = next;
  if (state.camera) {
    keepWanted = next;
    sendKeep();
  }
  render();
}

const sorted = (set) => [...set].sort((a, b) => a - b);

// One keep request at a time, each with the newest choice: answers cannot arrive out of order.
async function sendKeep() {
  if (keepSending) return;
  keepSending = true;
  try {
    while (keepWanted) {
      const sent = sorted(keepWanted);
      const result = await post("/api/keep", { keep: sent });
      if (!result || (keepWanted && sorted(keepWanted).join() === sent.join())) keepWanted = null;
    }
  } finally {
    keepSending = false;
  }
  render();
}

function renderActions(game) {
  const button = $("btn-throw");
  const next = game.throw + 1;
  button.textContent = game.throw && next <= game.max_throws && !game.announced
    ? t("throw_n", next, game.max_throws) : t("throw");
  const starting = Boolean(state.camera && state.camera.starting);
  button.disabled = !game.can_throw || starting;
  // A real camera reads the throws by itself; only the simulated tray has a throw button.
  const cameraReads = state.camera && !state.camera.can_throw;
  button.hidden = game.finished || cameraReads || !game.human_turn;
  $("btn-skip").hidden = game.finished || game.human_turn;
  const waiting = $("tray-waiting");
  waiting.hidden = !(cameraReads || starting) || game.finished || !game.can_throw
    || !game.human_turn;
  waiting.textContent = t(starting ? "camera_starting" : "tray_waiting");
  const announce = $("btn-announce");
  announce.hidden = !game.announceable.length;
  announce.textContent = t("announce", tr(game, "announced_throw") || "");
  renderReading(game);
  const correct = $("btn-correct");
  correct.hidden = !game.dice || !game.human_turn || game.finished;
  correct.setAttribute("aria-pressed", correcting ? "true" : "false");
  correct.textContent = correcting ? t("correct_which") : t("correct");
}

function renderAdvice(game) {
  const box = $("advice");
  const advice = state.advice;
  if (state.advice_pending) {
    box.hidden = false;
    box.className = "advice pending";
    box.textContent = t("advice_pending");
    return;
  }
  if (!advice || !game.human_turn) {
    box.hidden = true;
    return;
  }
  const best = advice.best || {};
  const keepText = (keep) => (keep && keep.length ? t("advice_keep", keep.join(" ")) : t("advice_keep_none"));
  let what = "";
  if (best.action === "keep") what = keepText(best.keep);
  else if (best.action === "write") what = t("advice_box", label(game, best.box), best.entry_points);
  else if (best.action === "announce") {
    what = t("advice_announce", tr(game, "announced_throw"), label(game, best.box), (best.keep || []).join(" ") || "—");
  }
  const value = typeof advice.value === "number" ? advice.value : best.value;
  const worth = typeof value !== "number" ? ""
    : advice.objective === "win" ? t("win_chance", Math.round(Math.min(value, 1) * 100))
    : t("expected", num(value, 1));
  box.hidden = !what;
  box.className = "advice";
  box.replaceChildren(
    el("strong", { text: `${t("advice")} : ` }), what,
    worth ? el("span", { class: "expected", text: ` — ${worth}` }) : null,
  );
}

// After « Lancer » on a camera table the dice roll, settle and are read: say so meanwhile.
function moment(game) {
  return [state.instance, game.id, game.turn, game.throw].join(":");
}

function renderReading(game) {
  const camera = state.camera;
  if (readingFor && (readingFor !== moment(game) || (camera && camera.message))) stopReading();
  $("reading").hidden = !readingFor;
  $("reading").textContent = t("reading");
}

function startReading() {
  if (!state.camera || !state.game) return;
  readingFor = moment(state.game);
  clearTimeout(readingTimer);
  readingTimer = setTimeout(() => { stopReading(); render(); }, 20000); // never for ever
  render();
}

function stopReading() {
  readingFor = null;
  clearTimeout(readingTimer);
}

// A computer's turn: its throw drawn on the tray, where the tray can be drawn.
function renderPhoto(game) {
  const figure = $("throw-photo");
  const shown = !game.human_turn && !game.finished && state.photo != null;
  figure.hidden = !shown;
  if (!shown) return;
  const img = $("throw-photo-img");
  const src = `/api/photo.jpg?n=${state.photo}`;
  if (img.getAttribute("src") !== src) img.setAttribute("src", src);
  img.alt = t("computer_photo", game.player);
}

function renderSuggestions(game) {
  const list = $("suggestions");
  // while a computer plays, its dice and its photo matter, not the boxes it could take
  for (const id of ["suggestions", "suggestions-title"]) $(id).hidden = !game.human_turn;
  const all = game.suggestions;
  const shown = showAll ? all : all.slice(0, 6);
  const hint = $("no-suggestions");
  hint.hidden = true;
  if (game.must_throw) {
    hint.hidden = false;
    hint.textContent = t("must_throw");
  }
  const humanTurn = game.human_turn && !game.finished;
  const best = state.advice && state.advice.best;
  const advised = best && best.action === "write" ? best.box : null;
  list.replaceChildren(...shown.map((entry) => el("li", {},
    el("button", {
      type: "button",
      class: `sugg${entry.points === 0 ? " zero" : ""}${entry.points < 0 ? " negative" : ""}`
        + (entry.box === advised ? " advised" : ""),
      "data-box": entry.box,
      disabled: !humanTurn,
      onclick: () => post("/api/score", { box: entry.box }),
    },
    el("span", { class: "sugg-label" }, tr(entry, "label"),
      entry.box === advised ? el("span", { class: "advised-tag", text: t("advised") }) : null),
    el("span", { class: "sugg-points", text: entry.bonus ? `${num(entry.points, 0)} +${entry.bonus}` : num(entry.points, 0) }),
    el("span", { class: "sugg-why", text: tr(entry, "why") }),
    entry.multipliers.length
      ? el("span", { class: "chips" }, entry.multipliers.map((m) => el("span", { class: "chip", text: `×${m.x} ${tr(m, "why")}` })))
      : null),
  )));
  const more = $("btn-more");
  more.hidden = all.length <= 6 || !game.human_turn;
  more.textContent = showAll ? t("show_less") : t("show_all", all.length);
}

function renderRecent(game) {
  const list = $("recent");
  if (!game.recent.length) {
    list.replaceChildren(el("li", { class: "hint", text: t("nothing_yet") }));
    return;
  }
  list.replaceChildren(...game.recent.slice(0, 5).map((r) => el("li", {},
    el("strong", { text: r.player }), `${lang === "fr" ? " : " : ": "}${tr(r, "label")} `,
    el("span", { class: "pts", text: `${num(r.points, 0)}${r.bonus ? ` +${r.bonus}` : ""}` }),
    el("span", { class: "dice-text", text: ` (${r.dice.join(" ")})` }))));
}

function cellText(points, zero = "—") {
  if (points === null || points === undefined) return "";
  return points === 0 ? zero : num(points, 0);
}

function previews(game) {
  const out = new Map();
  if (!game.human_turn || game.finished) return out;
  for (const s of game.suggestions) out.set(s.box, s.points);
  return out;
}

// a filled box opens its audit on the records page: the photo, the dice, the points' reasons
function auditCell(game, player, box, points, extra = "") {
  const classes = [points === 0 ? "crossed" : "", "audit", extra].filter(Boolean).join(" ");
  if (points === null || points === undefined) return el("td", { class: extra, text: "" });
  const href = `/records#audit/${game.id}/${encodeURIComponent(player)}/${encodeURIComponent(box)}`;
  return el("td", { class: classes, title: t("audit_box"), "data-audit": href,
    onclick: () => { window.location.href = href; } }, cellText(points));
}

function renderSheet(game) {
  const table = $("sheet");
  table.className = `sheet ${game.sheet.layout}`;
  if (game.sheet.layout === "columns") renderColumns(game, table);
  else renderRows(game, table);
}

function playerHead(game, p, i) {
  return el("th", {
    scope: "col",
    class: i === game.current ? "player current" : "player",
    title: p.computer ? `${t("computer")} (${p.computer})` : null,
  }, p.name, p.computer ? el("small", { text: ` ${t("computer")}` }) : null);
}

function renderRows(game, table) {
  const preview = previews(game);
  const head = el("thead", {}, el("tr", {}, el("th", { scope: "col", class: "corner" }),
    game.players.map((p, i) => playerHead(game, p, i))));
  const rows = game.sheet.rows.map((row) => {
    if (row.kind === "section") {
      return el("tr", { class: "section" }, el("th", { colspan: game.players.length + 1, scope: "colgroup", text: tr(row, "label") }));
    }
    if (row.kind === "total") {
      return el("tr", { class: `total ${row.key}` }, el("th", { scope: "row", text: tr(row, "label") }),
        game.sheets.map((s) => {
          const points = s.totals.find((x) => x.key === row.key)?.points;
          if (row.key === game.bonus_row && s.bonus_needed) {
            return el("td", { class: "bonus-needed", title: t("bonus_needed_title") },
              el("small", { text: t("bonus_needed", num(s.bonus_needed, 0)) }));
          }
          return el("td", { text: cellText(points, "0") });
        }));
    }
    return el("tr", { class: "box", "data-box": row.id }, el("th", { scope: "row", text: tr(row, "label") }),
      game.sheets.map((s, i) => {
        const points = s.cells[row.id];
        if ((points === null || points === undefined) && i === game.current && preview.has(row.id)) {
          return el("td", { class: "preview", title: t("cell_preview", preview.get(row.id)), text: num(preview.get(row.id), 0) });
        }
        return auditCell(game, s.player, row.id, points);
      }));
  });
  table.replaceChildren(head, el("tbody", {}, rows));
}

function renderColumns(game, table) {
  const preview = previews(game);
  const columns = game.sheet.columns;
  const head = el("thead", {}, el("tr", {}, el("th", { scope: "col", class: "corner" }),
    columns.map((c) => el("th", {
      scope: "col", class: c.closed ? "closed" : "", title: c.closed ? `${tr(c, "label")} — ${tr(c, "closed")}` : tr(c, "label"),
    }, c.id)),
    el("th", { scope: "col", text: t("total") })));
  const body = game.sheets.map((s, i) => el("tr", { class: i === game.current ? "current" : "" },
    el("th", { scope: "row", class: "player" }, s.player, game.players[i].computer ? el("small", { text: ` ${t("computer")}` }) : null),
    columns.map((c) => {
      const points = s.cells[c.id];
      if ((points === null || points === undefined) && i === game.current && preview.has(c.id) && !c.closed) {
        return el("td", { class: "preview", text: num(preview.get(c.id), 0) });
      }
      if (points !== null && points !== undefined) return auditCell(game, s.player, c.id, points, c.closed ? "closed" : "");
      return el("td", { class: c.closed ? "closed" : "", text: cellText(points) });
    }),
    el("td", { class: "total", text: num(s.totals[s.totals.length - 1].points, 0) })));
  const foot = el("tfoot", {}, el("tr", {}, el("th", { scope: "row", text: t("column_total") }),
    columns.map((c) => el("td", { class: c.closed ? "closed" : "", title: tr(c, "closed") || null },
      c.closed ? `✗ ${c.capacity > 1 ? c.total : ""}`.trim() : `${c.total}/${c.capacity}`)),
    el("td", {})));
  table.replaceChildren(head, el("tbody", {}, body), foot);
}

// -- dialogs -----------------------------------------------------------------------------------
let editing = null;

function editDie(i) {
  const game = state.game;
  if (!game || !game.dice || !game.human_turn) return;
  const die = game.dice[i];
  correcting = false;
  render();
  editing = { index: i, value: die.value, colour: die.colour, finish: die.finish };
  const top = game.kind === "d10" ? 10 : 6;
  const values = [];
  for (let v = 1; v <= top; v += 1) {
    values.push(el("button", {
      type: "button", class: "choice", "data-value": v, "aria-pressed": v === die.value ? "true" : "false",
      text: v, onclick: () => { editing.value = v; markChoice("die-values", "value", v); },
    }));
  }
  $("die-values").replaceChildren(...values);
  const colours = die.colour ? ["red", "white"].map((c) => el("button", {
    type: "button", class: `choice ${c}`, "data-colour": c, "aria-pressed": c === die.colour ? "true" : "false",
    text: t(c), onclick: () => { editing.colour = c; markChoice("die-colours", "colour", c); },
  })) : [];
  $("die-colours").replaceChildren(...colours);
  const finishes = die.finish ? ["frosted", "transparent"].map((f) => el("button", {
    type: "button", class: "choice", "data-finish": f, "aria-pressed": f === die.finish ? "true" : "false",
    text: t(f), onclick: () => { editing.finish = f; markChoice("die-finishes", "finish", f); },
  })) : [];
  $("die-finishes").replaceChildren(...finishes);
  $("dlg-die").showModal();
}

function markChoice(id, key, value) {
  for (const b of $(id).querySelectorAll("button")) {
    b.setAttribute("aria-pressed", b.dataset[key] === String(value) ? "true" : "false");
  }
}

function token(die) {
  return `${die.value}${die.colour ? die.colour[0] : ""}${die.finish ? die.finish[0] : ""}`;
}

function sendCorrection() {
  const game = state.game;
  if (!editing || !game || !game.dice) return;
  const dice = game.dice.map((d, i) => (i === editing.index ? token(editing) : token(d)));
  editing = null;
  post("/api/correct", { dice });
}

function openAnnounce() {
  const game = state.game;
  $("announce-title").textContent = t("announce_title", tr(game, "announced_throw"));
  $("announce-boxes").replaceChildren(...game.announceable.map((box) => el("button", {
    type: "button", class: "choice", "data-box": box, text: label(game, box),
    onclick: () => { $("dlg-announce").close(); post("/api/announce", { box }); },
  })));
  $("dlg-announce").showModal();
}

// new game form
function rulesById(id) {
  return boot.rules.find((r) => r.id === id) || boot.rules[0];
}

function renderOptions() {
  const rules = rulesById($("new-rules").value);
  const box = $("new-options");
  const fields = rules.options.map((opt) => {
    let input;
    if (opt.choices) {
      input = el("select", { "data-option": opt.name },
        opt.choices.map((c, i) => el("option", {
          value: i, selected: c === opt.default, text: (tr(opt, "choice_labels") || [])[i] ?? String(c),
        })));
    } else if (opt.type === "bool") {
      input = el("input", { type: "checkbox", "data-option": opt.name, checked: opt.default });
    } else {
      input = el("input", {
        type: "number", "data-option": opt.name, value: opt.default,
        min: opt.bounds ? opt.bounds[0] : null, max: opt.bounds ? opt.bounds[1] : null,
      });
    }
    return el("label", { class: "option" },
      el("span", { class: "option-name", text: tr(opt, "label") }), input,
      el("small", { class: "help", text: tr(opt, "help") }));
  });
  box.replaceChildren(...fields);
  $("new-options-box").hidden = !fields.length;
}

function optionValues() {
  const rules = rulesById($("new-rules").value);
  const out = {};
  for (const opt of rules.options) {
    const input = $("new-options").querySelector(`[data-option="${opt.name}"]`);
    if (opt.choices) out[opt.name] = opt.choices[Number(input.value)];
    else if (opt.type === "bool") out[opt.name] = input.checked;
    else out[opt.name] = parseInt(input.value, 10);
  }
  return out;
}

function playerRow(kind = "human", name = "") {
  const select = el("select", { class: "kind", "aria-label": t("players") },
    ["human", "facile", "difficile"].map((k) => el("option", { value: k, selected: k === kind, text: t(k) })));
  // a computer may be named too (« Rita », shown « Rita (ordi facile) »); blank: « Ordi facile »
  const input = el("input", {
    class: "name", type: "text", maxlength: 24, value: name, "aria-label": t("name"),
  });
  const hint = () => { input.placeholder = select.value === "human" ? t("name") : t(select.value); };
  hint();
  select.addEventListener("change", () => {
    if (select.value !== "human") input.value = ""; // not « Joueur 2 (ordi facile) »
    hint();
  });
  const remove = el("button", {
    type: "button", class: "remove", text: "×", "aria-label": t("remove"),
    onclick: () => { row.remove(); updatePlayerButtons(); },
  });
  const row = el("li", { class: "player-row" }, select, input, remove);
  return row;
}

function updatePlayerButtons() {
  const rows = $("new-players").children;
  $("btn-add-player").disabled = rows.length >= boot.max_players;
  for (const b of $("new-players").querySelectorAll(".remove")) b.disabled = rows.length <= 1;
}

function openNewGame() {
  const game = state.game;
  if (game && !game.finished && game.recent.length && !window.confirm(t("confirm_new"))) return;
  const select = $("new-rules");
  select.replaceChildren(...boot.rules.map((r) => el("option", { value: r.id, text: tr(r, "name") })));
  select.value = game ? game.rules : boot.default_rules || boot.rules[0].id;
  renderOptions();
  const players = game
    ? game.players.map((p) => (p.computer ? [p.computer, p.alias || ""] : ["human", p.name]))
    : [["human", t("player_n", 1)], ["human", t("player_n", 2)]];
  $("new-players").replaceChildren(...players.map(([k, n]) => playerRow(k, n)));
  updatePlayerButtons();
  $("new-error").hidden = true;
  $("dlg-new").showModal();
}

async function startGame(event) {
  event.preventDefault();
  const players = [...$("new-players").children].map((row) => {
    const kind = row.querySelector(".kind").value;
    const name = row.querySelector(".name").value.trim();
    if (kind === "human") return name;
    return name ? `${kind}:${name}` : kind;
  });
  const result = await post("/api/games", {
    rules: $("new-rules").value, options: optionValues(), players,
  });
  if (result) $("dlg-new").close();
}

// Undo says what it took back: the human entry, and the computers' entries after it.
async function undo() {
  const before = state.game;
  const result = await post("/api/undo", {});
  if (!result || !result.game || !before) return;
  if (before.corrected) {
    toast(t("undone_correction", (before.dice || []).map((d) => d.text).join(" "),
      (result.game.dice || []).map((d) => d.text).join(" ")));
    return;
  }
  const gone = before.recent.filter((r) => r.turn >= result.game.turn);
  const human = gone.filter((r) => !isComputer(before, r.player));
  const said = human.map((r) => `${r.player}, ${tr(r, "label")} (${num(r.points, 0)})`).join(", ");
  const computers = gone.length - human.length;
  toast(t("undone", computers ? t("undone_computers", said, computers) : said));
}

// « Règles »: what the rules of the game on the table (else of a new game) say, in short.
function openRules() {
  const rules = rulesById(state.game ? state.game.rules : boot.default_rules);
  $("rules-title").textContent = tr(rules, "name");
  $("rules-summary").replaceChildren(...rules.text.summary[lang].map((line) => el("li", { text: line })));
  $("rules-points").replaceChildren(...rules.text.points.map((p) => el("tr", {},
    el("th", { scope: "row", text: tr(p, "label") }), el("td", { text: num(p.points, 0) }))));
  $("rules-points").hidden = !rules.text.points.length;
  $("dlg-rules").showModal();
}

// « Rejouer »: the same rules, options and players, a new sheet.
function replay() {
  const game = state.game;
  post("/api/games", {
    rules: game.rules,
    options: game.options,
    players: game.players.map((p) => {
      if (!p.computer) return p.name;
      return p.alias ? `${p.computer}:${p.alias}` : p.computer;
    }),
  });
}

// -- wiring -----------------------------------------------------------------------------------
function wire() {
  $("btn-throw").addEventListener("click", async () => {
    startReading();
    if (!(await post("/api/throw", { keep: sorted(keep) }))) { stopReading(); render(); }
  });
  $("btn-undo").addEventListener("click", undo);
  $("btn-new").addEventListener("click", openNewGame);
  $("btn-rules").addEventListener("click", openRules);
  $("btn-start").addEventListener("click", openNewGame);
  $("btn-announce").addEventListener("click", openAnnounce);
  $("btn-skip").addEventListener("click", () => post("/api/skip", {}));
  $("btn-correct").addEventListener("click", () => { correcting = !correcting; render(); });
  $("btn-calibrate").addEventListener("click", calibrate);
  $("btn-more").addEventListener("click", () => { showAll = !showAll; render(); });
  $("btn-lang").addEventListener("click", () => {
    lang = lang === "fr" ? "en" : "fr";
    localStorage.setItem("yamscope.lang", lang);
    render();
  });
  $("new-rules").addEventListener("change", renderOptions);
  $("btn-add-player").addEventListener("click", () => {
    $("new-players").append(playerRow("human", t("player_n", $("new-players").children.length + 1)));
    updatePlayerButtons();
  });
  $("form-new").addEventListener("submit", startGame);
  $("btn-new-cancel").addEventListener("click", () => $("dlg-new").close());
  $("form-die").addEventListener("submit", sendCorrection);
  $("btn-die-cancel").addEventListener("click", () => { editing = null; $("dlg-die").close(); });
  $("btn-announce-cancel").addEventListener("click", () => $("dlg-announce").close());
  $("btn-pin-cancel").addEventListener("click", () => { pending = null; $("dlg-pin").close(); });
  $("form-pin").addEventListener("submit", () => {
    pin = $("pin-input").value;
    sessionStorage.setItem("yamscope.pin", pin);
    const retry = pending;
    pending = null;
    if (retry) retry();
  });
}

wire();
render();
setConn(false);
connect();
if (!state.game) openNewGame();
