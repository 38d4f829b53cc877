// yamscope owner's page: first-run wizard, settings, health, log, backup, phones, power.
// No framework and no build step, as the table page: served as it is, offline.
"use strict";
// boot, $, lang, t, formatNumber and el come from dom.js, loaded first.

// -- words ---------------------------------------------------------------------------------
const WORDS = {
  fr: {
    title: "Propriétaire", back: "← La table", cancel: "Annuler", ok: "Valider",
    tab_setup: "Mise en route", tab_settings: "Réglages", tab_health: "État", tab_log: "Journal",
    tab_records: "Sauvegarde", tab_phones: "Téléphones", tab_power: "Alimentation",
    pin_title: "Code PIN", pin_help: "Le code de la table est demandé pour les réglages.",
    offline: "Pas de réponse de la table.", next: "Suivant →", previous: "← Retour", skip: "Passer",
    step: "Étape {0}/{1}",
    w_language: "Langue", w_language_help: "La langue de la page, pour tous les écrans de la table.",
    w_camera: "Caméra", w_camera_help: "La caméra doit voir toute la piste, d'en haut.",
    w_calibrate: "Piste vide", w_calibrate_help: "Videz la piste, éclairez-la comme pour une partie, puis calibrez.",
    w_pin: "PIN des téléphones", w_pin_help: "Un code de 4 à 8 chiffres, demandé aux téléphones pour jouer. Sans PIN, seule cette machine (l'écran de la table) répond.",
    w_dice: "Apprendre mes dés", w_done: "Terminé",
    w_dice_help: "La table apprend vos dés : posez tous les dés du jeu sur la même face, valeur après valeur, deux fois chacune à d'autres places.",
    w_done_help: "La table est prête. Les réglages qui attendent un redémarrage sont listés ci-dessous.",
    finish_setup: "Terminer", setup_finished: "Mise en route terminée.",
    camera_none: "Pas de caméra : « Lancer » tire les dés. Branchez une caméra, puis redémarrez.",
    camera_state: "Caméra {0} : {1}, {2} images/s.",
    calibrate: "Calibrer (piste vide)", calibrated: "Piste calibrée : dés de {0} px, caméra de {1}°.",
    not_calibrated: "Piste pas encore calibrée.",
    felt_cut: "La piste semble sortir de l'image ({0}) : si la caméra n'en voit pas le bord, un dé peut y être à moitié hors de vue ; déplacez ou montez-la.",
    side_left: "à gauche", side_top: "en haut", side_right: "à droite", side_bottom: "en bas",
    calibrate_anyway: "Le lecteur voit {0} dé(s) sur la piste : sortez-les d'abord. Calibrer quand même (si ce ne sont pas des dés) ?",
    calibrate_yes: "Calibrer quand même",
    light_dark: "Trop sombre : le feutre est à {0} % de la pleine échelle (il faut {1} % ou plus).",
    light_glare: "Reflets : {0} % de la piste est blanc saturé (il faut {1} % ou moins).",
    light_uneven: "Lumière inégale : le plus clair du feutre est {0} % plus clair que le plus sombre (il faut {1} % ou moins).",
    pin_new: "Nouveau PIN", phones_open: "Ouvrir la table aux téléphones du réseau",
    save_pin: "Enregistrer le PIN", pin_removed: "PIN retiré : seule cette machine répond (après redémarrage).",
    pin_saved: "PIN enregistré : il vaut après le redémarrage.", pin_common: "Ce PIN est parmi les premiers essayés : choisissez-en un autre.",
    remove_pin: "Retirer le PIN",
    rules: "Règles", start_lesson: "Commencer", lesson_step: "Photo {0}/{1} : posez les {2} dés à plat, chacun sur le {3}.",
    lesson_again: "Encore le {0}, les dés à d'autres places.",
    lesson_simulated: "Piste simulée : elle pose les dés elle-même.",
    laid: "C'est posé", taking: "Photo…", retake: "Reprendre la dernière", learn: "Apprendre",
    learning: "Apprentissage…", lesson_cancel: "Abandonner",
    lesson_done: "Dés lus justes sur ces photos : {0}/{2} avant, {1}/{2} après. La table lit désormais avec vos dés.",
    lesson_cocked: "Dés posés à plat que la table croyait penchés : {0} avant, {1} après.",
    before: "avant", after: "après", value: "valeur", photo: "photo", enrolled: "Dés de la table appris : {0} photos de dés.",
    not_enrolled: "Dés de la table pas encore appris (le modèle lit seul).",
    settings_file: "Fichier : {0}", save: "Enregistrer", saved: "Enregistré dans {0}.",
    nothing_changed: "Rien n'a changé.", restart_needed: "À redémarrer pour valoir : {0}.",
    applied_now: "Vaut tout de suite.", needs_restart: "au redémarrage", live: "tout de suite",
    default: "défaut : {0}", unset: "(aucun)", pin_set: "PIN réglé", pin_unset: "pas de PIN",
    restart_now: "Redémarrer maintenant",
    h_camera: "Caméra", h_board: "Machine", h_disk: "Disque", h_memory: "Mémoire", h_model: "Modèle",
    not_a_pi: "Ce n'est pas un Raspberry Pi : pas de mesure de tension ni de bridage.",
    temperature: "Température du processeur : {0} °C", no_temperature: "Température du processeur : non mesurée ici.",
    power_ok: "Alimentation : aucune sous-tension ni bridage depuis le démarrage.",
    under_voltage_now: "SOUS-TENSION maintenant : l'alimentation est trop faible.",
    under_voltage_before: "Sous-tension depuis le démarrage : prenez une alimentation officielle.",
    throttled_now: "Processeur bridé maintenant (chaleur ou tension).",
    disk_line: "{0} Mo libres sur {1} Mo ({2}).", memory_line: "{0} Mo disponibles sur {1} Mo ; yamscope en utilise {2} Mo.",
    model_ok: "Le modèle calcule ici comme là où il a été exporté.", model_bad: "Le modèle calcule autrement ici : tous les dés seront « à vérifier ».",
    uptime: "Version {0}, en marche depuis {1}.", refresh: "Actualiser",
    log_empty: "Aucune ligne pour l'instant.",
    backup: "Télécharger une sauvegarde", backup_help: "Une copie entière des scores (fichier SQLite), à garder ailleurs.",
    backup_ready: "Sauvegarde prête : {0}.", restore: "Restaurer…", restore_help: "Remplace tous les scores par ceux d'une sauvegarde. Le fichier est vérifié d'abord ; les scores actuels sont gardés à côté.",
    restore_confirm: "Remplacer TOUS les scores de la table par ceux de « {0} » ? La table redémarre ensuite.",
    restore_yes: "Remplacer les scores", restore_done: "{0} parties restaurées. Redémarrage…",
    choose_file: "Choisissez d'abord un fichier.", postgres: "Les scores sont dans PostgreSQL : sauvegardez avec pg_dump sur le serveur.",
    join_help: "Les téléphones du réseau scannent ce code pour rejoindre la table.",
    join_name: "ou, par nom : {0}",
    restart: "Redémarrer yamscope", restart_confirm: "Redémarrer yamscope ? La partie reprend où elle en est.",
    restart_yes: "Redémarrer", restarting: "Redémarrage…", shutdown: "Éteindre la machine",
    shutdown_confirm: "Éteindre la machine ? Il faudra la rallumer à la main.", shutdown_yes: "Éteindre",
    shutting_down: "Extinction… Débranchez quand la lumière verte ne clignote plus.",
    restart_how_systemd: "yamscope tourne en service : systemd le relance.",
    restart_how_exec: "yamscope se relance lui-même avec la même commande.",
    no_shutdown: "Éteindre n'est possible que pour le service installé (yamscope.service).",
  },
  en: {
    title: "Owner", back: "← The table", cancel: "Cancel", ok: "OK",
    tab_setup: "Setup", tab_settings: "Settings", tab_health: "Health", tab_log: "Log",
    tab_records: "Backup", tab_phones: "Phones", tab_power: "Power",
    pin_title: "PIN", pin_help: "The table's PIN is needed for the settings.",
    offline: "The table does not answer.", next: "Next →", previous: "← Back", skip: "Skip",
    step: "Step {0}/{1}",
    w_language: "Language", w_language_help: "The page's language, for every screen of the table.",
    w_camera: "Camera", w_camera_help: "The camera must see the whole tray, from above.",
    w_calibrate: "Empty tray", w_calibrate_help: "Empty the tray, light it as for a game, then calibrate.",
    w_pin: "PIN for phones", w_pin_help: "4 to 8 digits, asked of phones before they play. Without a PIN only this machine (the table's screen) is answered.",
    w_dice: "Learn my dice", w_done: "Done",
    w_dice_help: "The table learns your dice: lay every die of the game on the same face, value after value, twice each in other places.",
    w_done_help: "The table is ready. Settings waiting for a restart are listed below.",
    finish_setup: "Finish", setup_finished: "Setup finished.",
    camera_none: "No camera: “Throw” draws the dice. Connect a camera, then restart.",
    camera_state: "Camera {0}: {1}, {2} frames/s.",
    calibrate: "Calibrate (empty tray)", calibrated: "Tray calibrated: dice of {0} px, camera of {1}°.",
    not_calibrated: "Tray not calibrated yet.",
    felt_cut: "The felt seems to run out of the picture ({0}): if the camera does not see the tray's wall there, a die can lie half out of view; move or raise the camera.",
    side_left: "left", side_top: "top", side_right: "right", side_bottom: "bottom",
    calibrate_anyway: "The reader sees {0} dice on the tray: take them out first. Calibrate anyway (if they are not dice)?",
    calibrate_yes: "Calibrate anyway",
    light_dark: "Too dark: the felt is at {0} % of full scale (want {1} % or more).",
    light_glare: "Glare: {0} % of the tray is clipped white (want {1} % or less).",
    light_uneven: "Uneven light: the brightest part of the felt is {0} % lighter than the darkest (want {1} % or less).",
    pin_new: "New PIN", phones_open: "Open the table to phones on the network",
    save_pin: "Save the PIN", pin_removed: "PIN removed: only this machine is answered (after a restart).",
    pin_saved: "PIN saved: it holds after the restart.", pin_common: "This PIN is among the first anyone tries: choose another.",
    remove_pin: "Remove the PIN",
    rules: "Rules", start_lesson: "Start", lesson_step: "Photo {0}/{1}: lay the {2} dice flat, each showing {3}.",
    lesson_again: "{0} again, the dice in other places.",
    lesson_simulated: "Simulated tray: it lays the dice itself.",
    laid: "Dice laid", taking: "Photo…", retake: "Take the last one again", learn: "Learn",
    learning: "Learning…", lesson_cancel: "Give up",
    lesson_done: "Dice read right on these photos: {0}/{2} before, {1}/{2} after. The table now reads with your dice.",
    lesson_cocked: "Dice laid flat that the table took for cocked: {0} before, {1} after.",
    before: "before", after: "after", value: "value", photo: "photo", enrolled: "The table's dice learned: {0} photos of dice.",
    not_enrolled: "The table's dice not learned yet (the model reads alone).",
    settings_file: "File: {0}", save: "Save", saved: "Saved in {0}.",
    nothing_changed: "Nothing changed.", restart_needed: "Takes effect after a restart: {0}.",
    applied_now: "Takes effect now.", needs_restart: "at restart", live: "at once",
    default: "default: {0}", unset: "(none)", pin_set: "PIN set", pin_unset: "no PIN",
    restart_now: "Restart now",
    h_camera: "Camera", h_board: "Machine", h_disk: "Disk", h_memory: "Memory", h_model: "Model",
    not_a_pi: "Not a Raspberry Pi: no voltage or throttling to read.",
    temperature: "CPU temperature: {0} °C", no_temperature: "CPU temperature: not measured here.",
    power_ok: "Power: no under-voltage or throttling since boot.",
    under_voltage_now: "UNDER-VOLTAGE now: the power supply is too weak.",
    under_voltage_before: "Under-voltage since boot: use an official power supply.",
    throttled_now: "CPU throttled now (heat or voltage).",
    disk_line: "{0} MB free of {1} MB ({2}).", memory_line: "{0} MB available of {1} MB; yamscope uses {2} MB.",
    model_ok: "The model computes here as where it was exported.", model_bad: "The model computes otherwise here: every die will be flagged “check”.",
    uptime: "Version {0}, running for {1}.", refresh: "Refresh",
    log_empty: "No lines yet.",
    backup: "Download a backup", backup_help: "A whole copy of the records (an SQLite file), to keep elsewhere.",
    backup_ready: "Backup ready: {0}.", restore: "Restore…", restore_help: "Replaces every record by a backup's. The file is checked first; the current records are kept beside.",
    restore_confirm: "Replace ALL of the table's records by those of “{0}”? The table restarts then.",
    restore_yes: "Replace the records", restore_done: "{0} games restored. Restarting…",
    choose_file: "Choose a file first.", postgres: "The records are in PostgreSQL: back them up with pg_dump on the server.",
    join_help: "Phones on the network scan this code to join the table.",
    join_name: "or, by name: {0}",
    restart: "Restart yamscope", restart_confirm: "Restart yamscope? The game resumes where it is.",
    restart_yes: "Restart", restarting: "Restarting…", shutdown: "Shut the machine down",
    shutdown_confirm: "Shut the machine down? It will have to be switched on by hand.", shutdown_yes: "Shut down",
    shutting_down: "Shutting down… Unplug once the green light stops blinking.",
    restart_how_systemd: "yamscope runs as a service: systemd starts it again.",
    restart_how_exec: "yamscope starts itself again with the same command.",
    no_shutdown: "Shutting down is only for the installed service (yamscope.service).",
  },
};
// Each key's name on the settings page: [French, English].
const KEYS = {
  "server.host": ["Adresse d'écoute", "Listen address"], "server.port": ["Port", "Port"],
  "server.pin": ["PIN", "PIN"], "storage.data_dir": ["Dossier des scores", "Records folder"],
  "storage.snapshots": ["Garder la photo de chaque jet", "Keep each throw's photo"],
  "storage.photo_budget_mb": ["Place des photos (Mo)", "Photos' budget (MB)"],
  "storage.url": ["Base des scores (fichier ou postgresql://)", "Records (file or postgresql://)"],
  "camera.source": ["Source des images", "Frame source"], "camera.calibration": ["Fichier de calibration", "Calibration file"],
  "camera.width": ["Largeur (px)", "Width (px)"], "camera.height": ["Hauteur (px)", "Height (px)"],
  "camera.lores_width": ["Petite image : largeur", "Small stream width"], "camera.lores_height": ["Petite image : hauteur", "Small stream height"],
  "camera.fps": ["Images par seconde", "Frames per second"], "camera.watchdog_seconds": ["Relance sans image après (s)", "Restart without frames after (s)"],
  "camera.field_of_view": ["Champ de la caméra (°)", "Camera's field of view (°)"],
  "camera.lock_exposure_after_calibration": ["Bloquer l'exposition après calibration", "Lock exposure after calibrating"],
  "table.rules": ["Règles des nouvelles parties", "Rules of new games"], "table.name": ["Nom de la table", "Table's name"],
  "table.language": ["Langue", "Language"], "table.max_players": ["Joueurs au plus", "Most players"],
  "table.computer_pace": ["Rythme de l'ordinateur (s)", "Computer's pace (s)"], "advisor.cache_dir": ["Dossier du conseiller", "Advisor's folder"],
};

const said = (data) => (lang === "fr" && data.error_fr) || data.error || "";
const num = (x, digits = 1) => formatNumber(x, digits);

let toastTimer = null;
function toast(message, ms = 6000) {
  const box = $("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, ms);
}

// -- requests: the page token always, the PIN when the table has one ---------------------------
let pin = sessionStorage.getItem("yamscope.pin");
function headers(extra = {}) {
  const out = { "X-Yamscope-Token": boot.token, ...extra };
  if (boot.pin && pin) out["X-Yamscope-Pin"] = pin;
  return out;
}

// Resolves to the response's JSON (or the response itself with ``raw``); null after a
// refusal, which is said in a toast (or, for a PIN, asked and the request sent again).
async function call(method, path, { body = undefined, raw = false, extra = {}, quiet = false } = {}) {
  const options = { method, headers: headers(extra) };
  if (body !== undefined) {
    if (body instanceof Blob) options.body = body;
    else {
      options.body = JSON.stringify(body);
      options.headers["Content-Type"] = "application/json";
    }
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    if (!quiet) toast(t("offline"));
    return null;
  }
  if (response.ok) return raw ? response : response.json();
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (response.status === 403 && boot.pin && /PIN/.test(data.error || "")) {
    pin = null;
    sessionStorage.removeItem("yamscope.pin");
    if (await askPin()) return call(method, path, { body, raw, extra, quiet });
    return null;
  }
  if (!quiet) toast(said(data) || response.statusText);
  return null;
}

function askPin() {
  return new Promise((resolve) => {
    const dialog = $("dlg-pin");
    $("pin-input").value = "";
    const done = (ok) => {
      dialog.close();
      $("form-pin").onsubmit = null;
      $("btn-pin-cancel").onclick = null;
      resolve(ok);
    };
    $("form-pin").onsubmit = (event) => {
      event.preventDefault();
      pin = $("pin-input").value.trim();
      sessionStorage.setItem("yamscope.pin", pin);
      done(true);
    };
    $("btn-pin-cancel").onclick = () => done(false);
    dialog.showModal();
  });
}

// Destructive actions are asked in the page, with the action's own words on the button.
function confirmed(text, yes) {
  return new Promise((resolve) => {
    const dialog = $("dlg-confirm");
    $("confirm-text").textContent = text;
    $("btn-confirm-yes").textContent = yes;
    const done = (ok) => { dialog.close(); resolve(ok); };
    $("btn-confirm-yes").onclick = () => done(true);
    $("btn-confirm-no").onclick = () => done(false);
    dialog.showModal();
  });
}

// After a restart the page's token is another process's: wait for the table, then reload.
async function waitForRestart() {
  toast(t("restarting"), 60000);
  const before = Date.now();
  let wentAway = false;
  while (Date.now() - before < 120000) {
    await new Promise((r) => setTimeout(r, 700));
    try {
      const response = await fetch("/api/state", { cache: "no-store" });
      if (response.ok && (wentAway || Date.now() - before > 8000)) { location.reload(); return; }
      if (!response.ok) wentAway = true;
    } catch (err) {
      wentAway = true;
    }
  }
}

// -- tabs ----------------------------------------------------------------------------------------
const VIEWS = {};
let timer = null;
function show() {
  clearInterval(timer);
  $("toast").hidden = true; // what it said was of the view left
  const tab = (location.hash || (boot.setup_done ? "#health" : "#setup")).slice(1);
  const view = VIEWS[tab] ? tab : "setup";
  for (const a of document.querySelectorAll("#tabs a")) a.classList.toggle("active", a.dataset.tab === view);
  const main = $("view");
  main.replaceChildren();
  VIEWS[view](main);
}

function translate() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  $("btn-lang").textContent = lang === "fr" ? "EN" : "FR";
}

function setLanguage(next) {
  lang = next;
  localStorage.setItem("yamscope.lang", lang);
  translate();
  show();
}

// -- the wizard ----------------------------------------------------------------------------------
const STEPS = ["language", "camera", "calibrate", "pin", "dice", "done"];
let wizardStep = 0;
const pendingRestart = new Set();

VIEWS.setup = (main) => {
  const name = STEPS[wizardStep];
  const box = el("section", { class: "card wizard", id: `step-${name}` });
  box.append(el("p", { class: "muted", text: t("step", wizardStep + 1, STEPS.length) }));
  box.append(el("h2", { text: t(`w_${name}`) }));
  main.append(box);
  WIZARD[name](box);
  const nav = el("div", { class: "buttons wizard-nav" });
  if (wizardStep > 0) nav.append(el("button", { type: "button", id: "btn-wizard-back", text: t("previous"), onclick: () => { wizardStep -= 1; show(); } }));
  if (wizardStep < STEPS.length - 1) {
    nav.append(el("button", { type: "button", id: "btn-wizard-next", class: "primary", text: t("next"), onclick: () => { wizardStep += 1; show(); } }));
  }
  main.append(nav);
};

const WIZARD = {
  language(box) {
    box.append(el("p", { text: t("w_language_help") }));
    const row = el("div", { class: "choice-row" });
    for (const [code, label] of [["fr", "Français"], ["en", "English"]]) {
      row.append(el("button", {
        type: "button", id: `btn-language-${code}`, class: lang === code ? "primary" : "",
        "aria-pressed": String(lang === code), text: label,
        onclick: async () => {
          const saved = await call("POST", "/api/owner/settings", { body: { values: { "table.language": code } } });
          if (saved) saved.restart.forEach((k) => pendingRestart.add(k));
          setLanguage(code);
        },
      }));
    }
    box.append(row);
  },

  async camera(box) {
    box.append(el("p", { text: t("w_camera_help") }));
    const line = el("p", { id: "camera-line" });
    box.append(line);
    const status = await call("GET", "/api/owner/health", { quiet: true });
    const camera = status && status.camera;
    if (!camera) {
      line.textContent = t("camera_none");
      return;
    }
    line.textContent = t("camera_state", camera.source, camera.state, num(camera.fps || 0));
    box.append(livePicture());
  },

  async calibrate(box) {
    box.append(el("p", { text: t("w_calibrate_help") }));
    const line = el("p", { id: "calibration-line" });
    box.append(livePicture(), line);
    const describe = (state) => {
      const calibration = state && state.camera && state.camera.calibration;
      line.textContent = calibration ? t("calibrated", num(calibration.die_side, 0), num(calibration.field_of_view, 0)) : t("not_calibrated");
      const pct = (x) => num(x * 100, 0);
      for (const p of (calibration && calibration.light) || []) line.append(el("br"), t(`light_${p.problem}`, pct(p.measured), pct(p.limit)));
      const cut = ((calibration && calibration.cut_off) || []).map((side) => t(`side_${side}`));
      if (cut.length) line.append(el("br"), t("felt_cut", cut.join(", ")));
    };
    const table = await call("GET", "/api/state", { quiet: true });
    describe(table);
    box.append(el("button", {
      type: "button", id: "btn-wizard-calibrate", class: "primary", text: t("calibrate"),
      onclick: async () => describe(await calibrate(false)),
    }));
  },

  pin(box) {
    box.append(el("p", { text: t("w_pin_help") }));
    const input = el("input", { id: "wizard-pin", type: "password", inputmode: "numeric", autocomplete: "off", maxlength: "8", "aria-label": t("pin_new") });
    const phones = el("input", { id: "wizard-phones", type: "checkbox", checked: true });
    box.append(
      el("label", { class: "field" }, el("span", { text: t("pin_new") }), input),
      el("label", { class: "check" }, phones, el("span", { text: t("phones_open") })),
    );
    const line = el("p", { id: "pin-line", class: "hint" });
    box.append(el("div", { class: "buttons" },
      el("button", { type: "button", id: "btn-save-pin", class: "primary", text: t("save_pin"), onclick: async () => {
        const saved = await call("POST", "/api/owner/pin", { body: { pin: input.value.trim(), phones: phones.checked } });
        if (!saved) return;
        saved.restart.forEach((k) => pendingRestart.add(k));
        line.textContent = t("pin_saved") + (saved.common ? ` ${t("pin_common")}` : "");
      } }),
      el("button", { type: "button", id: "btn-remove-pin", text: t("remove_pin"), onclick: async () => {
        const saved = await call("POST", "/api/owner/pin", { body: { pin: null, phones: false } });
        if (!saved) return;
        saved.restart.forEach((k) => pendingRestart.add(k));
        line.textContent = t("pin_removed");
      } }),
    ), line);
  },

  async dice(box) {
    box.append(el("p", { text: t("w_dice_help") }));
    const status = await call("GET", "/api/owner/status", { quiet: true });
    if (!status || !status.camera) {
      box.append(el("p", { text: t("camera_none") }));
      return;
    }
    box.append(el("p", { id: "enrolment-line", class: "hint", text: status.enrolment
      ? t("enrolled", Object.values(status.enrolment).reduce((a, b) => a + b, 0)) : t("not_enrolled") }));
    const area = el("div", { id: "lesson" });
    box.append(area);
    drawLesson(area, status.lesson);
  },

  done(box) {
    box.append(el("p", { text: t("w_done_help") }));
    if (pendingRestart.size) box.append(el("p", { id: "restart-line", text: t("restart_needed", [...pendingRestart].join(", ")) }));
    box.append(joinCard());
    const buttons = el("div", { class: "buttons" });
    buttons.append(el("button", { type: "button", id: "btn-finish-setup", class: "primary", text: t("finish_setup"), onclick: async () => {
      if (!(await call("POST", "/api/owner/setup-done", { body: {} }))) return;
      boot.setup_done = true;
      toast(t("setup_finished"));
      if (pendingRestart.size) await restart();
      else location.href = "/";
    } }));
    box.append(buttons);
  },
};

function livePicture() {
  const img = el("img", { id: "owner-live", class: "owner-live", alt: "", width: "480", height: "360" });
  const load = () => { img.src = `/api/live.jpg?t=${Date.now()}`; };
  load();
  clearInterval(timer);
  timer = setInterval(() => { if (document.body.contains(img)) load(); }, 1000);
  return img;
}

async function calibrate(anyway) {
  const response = await fetch("/api/calibrate", {
    method: "POST", headers: { ...headers(), "Content-Type": "application/json" }, body: JSON.stringify({ anyway }),
  }).catch(() => null);
  if (!response) { toast(t("offline")); return null; }
  const data = await response.json().catch(() => ({}));
  if (response.ok) return data;
  if (response.status === 409 && data.dice_seen) {
    if (await confirmed(t("calibrate_anyway", data.dice_seen.length), t("calibrate_yes"))) return calibrate(true);
    return null;
  }
  if (response.status === 403 && boot.pin && (await askPin())) return calibrate(anyway);
  toast(said(data) || response.statusText);
  return null;
}

// « Apprendre mes dés »: the step asked, the photos taken, then the result.
function drawLesson(area, lesson) {
  area.replaceChildren();
  if (!lesson) {
    const select = el("select", { id: "lesson-rules" }, boot.rulebooks.map((id) => el("option", { value: id, selected: id === boot.rules, text: id })));
    area.append(el("label", { class: "field" }, el("span", { text: t("rules") }), select));
    area.append(el("button", { type: "button", id: "btn-lesson-start", class: "primary", text: t("start_lesson"), onclick: async () => {
      drawLesson(area, await call("POST", "/api/owner/lesson", { body: { rules: select.value } }));
    } }));
    return;
  }
  if (lesson.simulated) area.append(el("p", { class: "hint", text: t("lesson_simulated") }));
  if (lesson.result) {
    const r = lesson.result;
    area.append(el("p", { id: "lesson-result", class: "said", text: t("lesson_done", r.right_before, r.right_after, r.dice) }));
    if (r.cocked) area.append(el("p", { id: "lesson-cocked", class: "hint", text: t("lesson_cocked", r.cocked.before, r.cocked.after) }));
    const rows = r.photos.map((p) => el("tr", {},
      el("td", {}, el("img", { class: "lesson-thumb", alt: `${t("photo")} ${p.index + 1}`, src: `/api/owner/lesson/${p.index}.jpg` })),
      el("td", { class: "num", text: p.value }),
      el("td", { class: "num before", text: `${p.right_before}/${p.dice}` }),
      el("td", { class: "num after", text: `${p.right_after}/${p.dice}` })));
    area.append(el("div", { class: "scroll" }, el("table", { id: "lesson-photos", class: "list" },
      el("thead", {}, el("tr", {}, el("th", { text: t("photo") }), el("th", { class: "num", text: t("value") }),
        el("th", { class: "num", text: t("before") }), el("th", { class: "num", text: t("after") }))),
      el("tbody", {}, rows))));
    return;
  }
  const busy = (button, words) => { button.disabled = true; button.textContent = words; };
  if (lesson.value !== null) {
    area.append(el("p", { id: "lesson-step", class: "said", text: t("lesson_step", lesson.taken + 1, lesson.steps, lesson.dice, lesson.value) }));
    if (lesson.round > 1) area.append(el("p", { class: "hint", text: t("lesson_again", lesson.value) }));
  }
  const buttons = el("div", { class: "buttons" });
  if (lesson.value !== null) {
    buttons.append(el("button", { type: "button", id: "btn-lesson-photo", class: "primary", text: t("laid"), onclick: async (event) => {
      busy(event.target, t("taking"));
      const next = await call("POST", "/api/owner/lesson/photo", { body: {} });
      drawLesson(area, next || lesson);
    } }));
  } else {
    buttons.append(el("button", { type: "button", id: "btn-lesson-finish", class: "primary", text: t("learn"), onclick: async (event) => {
      busy(event.target, t("learning"));
      const next = await call("POST", "/api/owner/lesson/finish", { body: {} });
      drawLesson(area, next || lesson);
    } }));
  }
  if (lesson.taken) {
    buttons.append(el("button", { type: "button", id: "btn-lesson-undo", text: t("retake"), onclick: async () => {
      drawLesson(area, (await call("POST", "/api/owner/lesson/undo", { body: {} })) || lesson);
    } }));
  }
  buttons.append(el("button", { type: "button", id: "btn-lesson-cancel", text: t("lesson_cancel"), onclick: async () => {
    if (await call("POST", "/api/owner/lesson/cancel", { body: {} })) drawLesson(area, null);
  } }));
  area.append(buttons);
  if (lesson.value !== null) area.append(livePicture()); // under the button: it stays in view
  const strip = el("div", { class: "lesson-strip", id: "lesson-strip" });
  for (let i = 0; i < lesson.taken; i += 1) strip.append(el("img", { class: "lesson-thumb", alt: `${t("photo")} ${i + 1}`, src: `/api/owner/lesson/${i}.jpg` }));
  area.append(strip);
}

// -- settings ------------------------------------------------------------------------------------
VIEWS.settings = async (main) => {
  const data = await call("GET", "/api/owner/settings");
  if (!data) return;
  main.append(el("p", { class: "muted", id: "settings-path", text: t("settings_file", data.path) }));
  const form = el("form", { id: "settings-form", class: "settings" });
  const inputs = new Map();
  let section = null;
  for (const f of data.fields) {
    const name = f.key.split(".")[0];
    if (name !== section) {
      section = name;
      form.append(el("h2", { text: `[${name}]` }));
    }
    const label = (KEYS[f.key] || [f.key, f.key])[lang === "fr" ? 0 : 1];
    let input;
    if (f.secret) {
      input = el("span", { class: "hint", text: f.value ? t("pin_set") : t("pin_unset") });
    } else if (f.kind === "bool") {
      input = el("input", { type: "checkbox", checked: f.value });
    } else if (f.kind === "choice") {
      input = el("select", {}, f.choices.map((c) => el("option", { value: c, selected: c === f.value, text: c })));
    } else {
      input = el("input", { type: f.kind === "text" ? "text" : "number", step: f.kind === "float" ? "any" : "1", value: f.value ?? "", placeholder: f.value === null ? t("unset") : null });
    }
    if (!f.secret) inputs.set(f.key, [input, f]);
    const when = el("span", { class: f.live ? "when live" : "when", text: f.live ? t("live") : t("needs_restart") });
    form.append(el("div", { class: "setting", "data-key": f.key },
      el("label", { class: "field" }, el("span", { class: "key-name", text: label }), input),
      el("details", {}, el("summary", { text: `${f.key} · ${when.textContent}` }),
        el("p", { class: "hint", text: f.description }),
        el("p", { class: "hint", text: t("default", f.default === null ? t("unset") : f.default) }))));
  }
  const result = el("p", { id: "settings-result", class: "hint" });
  form.append(el("div", { class: "buttons sticky" }, el("button", { type: "submit", id: "btn-settings-save", class: "primary", text: t("save") })), result);
  form.onsubmit = async (event) => {
    event.preventDefault();
    const values = {};
    for (const [key, [input, f]] of inputs) {
      let value;
      if (f.kind === "bool") value = input.checked;
      else if (f.kind === "int") value = input.value === "" ? null : Number.parseInt(input.value, 10);
      else if (f.kind === "float") value = input.value === "" ? null : Number.parseFloat(input.value);
      else value = input.value === "" ? null : input.value;
      if (value !== f.value) values[key] = value;
    }
    if (!Object.keys(values).length) { result.textContent = t("nothing_changed"); return; }
    const saved = await call("POST", "/api/owner/settings", { body: { values } });
    if (!saved) return;
    result.replaceChildren(t("saved", saved.path), " ",
      saved.restart.length ? t("restart_needed", saved.restart.join(", ")) : t("applied_now"));
    if (saved.restart.length) result.append(" ", el("button", { type: "button", id: "btn-settings-restart", text: t("restart_now"), onclick: restart }));
    for (const key of saved.changed) if (inputs.has(key)) inputs.get(key)[1].value = values[key];
  };
  main.append(form);
};

// -- health --------------------------------------------------------------------------------------
function duration(seconds) {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h ? `${h} h ${m} min` : `${m} min`;
}

VIEWS.health = async (main) => {
  const data = await call("GET", "/api/owner/health");
  if (!data) return;
  const card = (id, title, ...lines) => el("section", { class: "card", id }, el("h3", { text: title }), lines.map((l) => el("p", { text: l })));
  const camera = data.camera;
  main.append(el("p", { class: "muted", text: t("uptime", data.version, duration(data.uptime_s)) }));
  main.append(card("h-camera", t("h_camera"), camera ? t("camera_state", camera.source, camera.state, num(camera.fps || 0)) : t("camera_none"),
    data.enrolment ? t("enrolled", Object.values(data.enrolment).reduce((a, b) => a + b, 0)) : t("not_enrolled")));
  const board = data.board;
  const lines = [board.model || t("not_a_pi").split(":")[0],
    board.temperature_c !== null ? t("temperature", num(board.temperature_c)) : t("no_temperature")];
  if (!board.pi) lines.push(t("not_a_pi"));
  else if (board.throttled && board.throttled.now) {
    const now = board.throttled.now;
    const ever = board.throttled.since_boot;
    if (now.under_voltage) lines.push(t("under_voltage_now"));
    else if (ever.under_voltage) lines.push(t("under_voltage_before"));
    if (now.throttled || now.frequency_capped) lines.push(t("throttled_now"));
    if (board.throttled.ok) lines.push(t("power_ok"));
  } else if (board.throttled && board.throttled.error) lines.push(board.throttled.error);
  const boardCard = card("h-board", t("h_board"), ...lines);
  if (board.pi && board.throttled && !board.throttled.ok) boardCard.classList.add("alarm");
  main.append(boardCard);
  const disk = data.disk;
  main.append(card("h-disk", t("h_disk"), t("disk_line", num(disk.free_mb, 0), num(disk.total_mb, 0), disk.folder)));
  const memory = data.memory;
  main.append(card("h-memory", t("h_memory"), t("memory_line", num(memory.available_mb ?? 0, 0), num(memory.total_mb ?? 0, 0), num(memory.process_mb ?? 0, 0))));
  const model = card("h-model", t("h_model"), data.model.ok ? t("model_ok") : t("model_bad"), data.model.line);
  if (!data.model.ok) model.classList.add("alarm");
  main.append(model);
  main.append(el("button", { type: "button", id: "btn-health-refresh", text: t("refresh"), onclick: show }));
};

// -- the log ---------------------------------------------------------------------------------
VIEWS.log = async (main) => {
  const list = el("pre", { id: "log-lines", class: "log" });
  main.append(list);
  let last = 0;
  const more = async () => {
    const data = await call("GET", `/api/owner/log?after=${last}`, { quiet: last > 0 });
    if (!data || !document.body.contains(list)) return;
    for (const line of data.lines) {
      list.append(el("span", { class: `line ${line.level.toLowerCase()}`, text: `${line.text}\n` }));
      last = line.n;
    }
    if (!list.childElementCount) list.textContent = t("log_empty");
    list.scrollTop = list.scrollHeight;
  };
  await more();
  timer = setInterval(more, 3000);
};

// -- records: backup and restore --------------------------------------------------------------
VIEWS.records = async (main) => {
  const status = await call("GET", "/api/owner/status", { quiet: true });
  if (status && status.records === "postgresql") {
    main.append(el("p", { id: "records-postgres", class: "said", text: t("postgres") }));
    return;
  }
  const result = el("p", { id: "records-result", class: "hint" });
  main.append(el("section", { class: "card" }, el("h3", { text: t("backup") }), el("p", { class: "hint", text: t("backup_help") }),
    el("button", { type: "button", id: "btn-backup", class: "primary", text: t("backup"), onclick: async () => {
      const response = await call("POST", "/api/owner/backup", { body: {}, raw: true });
      if (!response) return;
      const name = (/filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "") || [])[1] || "yamscope.db";
      const link = el("a", { id: "backup-link", href: URL.createObjectURL(await response.blob()), download: name, text: name });
      result.replaceChildren(t("backup_ready", ""), link);
      link.click();
    } })));
  const file = el("input", { type: "file", id: "restore-file", accept: ".db,.sqlite,.sqlite3,application/vnd.sqlite3" });
  main.append(el("section", { class: "card danger-zone" }, el("h3", { text: t("restore") }), el("p", { class: "hint", text: t("restore_help") }), file,
    el("button", { type: "button", id: "btn-restore", text: t("restore"), onclick: async () => {
      const chosen = file.files[0];
      if (!chosen) { toast(t("choose_file")); return; }
      if (!(await confirmed(t("restore_confirm", chosen.name), t("restore_yes")))) return;
      const done = await call("POST", "/api/owner/restore", { body: chosen, extra: { "Content-Type": "application/octet-stream", "X-Yamscope-Confirm": "restore" } });
      if (!done) return;
      result.textContent = t("restore_done", done.games);
      waitForRestart();
    } })), result);
};

// -- phones ----------------------------------------------------------------------------------
function joinCard() {
  const card = el("section", { class: "card join", id: "join" }, el("p", { class: "hint", text: t("join_help") }));
  call("GET", "/api/owner/join", { quiet: true }).then((data) => {
    if (!data) return;
    if (!data.url) {
      card.append(el("p", { id: "join-why", class: "said", text: lang === "fr" ? data.why_not_fr : data.why_not }));
      return;
    }
    card.append(el("img", { id: "join-qr", class: "qr", alt: data.url, src: `/api/owner/join.svg?t=${Date.now()}` }),
      el("p", { id: "join-url", class: "join-url", text: data.url }), el("p", { class: "hint", text: t("join_name", data.by_name) }));
  });
  return card;
}
VIEWS.phones = (main) => main.append(joinCard());

// -- power -----------------------------------------------------------------------------------
async function restart() {
  if (!(await confirmed(t("restart_confirm"), t("restart_yes")))) return;
  if (await call("POST", "/api/owner/restart", { body: { confirm: true } })) waitForRestart();
}

VIEWS.power = async (main) => {
  const status = await call("GET", "/api/owner/status", { quiet: true });
  main.append(el("section", { class: "card" }, el("h3", { text: t("restart") }),
    status ? el("p", { class: "hint", text: t(`restart_how_${status.restart}`) }) : null,
    el("button", { type: "button", id: "btn-restart", class: "primary", text: t("restart"), onclick: restart })));
  main.append(el("section", { class: "card danger-zone" }, el("h3", { text: t("shutdown") }),
    status && !status.can_shut_down ? el("p", { class: "hint", id: "no-shutdown", text: t("no_shutdown") }) : null,
    el("button", { type: "button", id: "btn-shutdown", text: t("shutdown"), onclick: async () => {
      if (!(await confirmed(t("shutdown_confirm"), t("shutdown_yes")))) return;
      if (await call("POST", "/api/owner/shutdown", { body: { confirm: true } })) toast(t("shutting_down"), 60000);
    } })));
};

// -- start -----------------------------------------------------------------------------------
$("btn-lang").addEventListener("click", () => setLanguage(lang === "fr" ? "en" : "fr"));
$("toast").addEventListener("click", () => { $("toast").hidden = true; });
window.addEventListener("hashchange", show);
translate();
show();
