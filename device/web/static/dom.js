// yamscope pages' shared helpers, loaded before each page's own script (table, owner, records).
// Classic scripts share one global scope: `lang` set here is the page's, and `t` reads the
// `WORDS` table each page script declares.
"use strict";

const boot = JSON.parse(document.getElementById("boot").textContent);
const $ = (id) => document.getElementById(id);

let lang = localStorage.getItem("yamscope.lang") || boot.language || "fr";
if (lang !== "en") lang = "fr";

// The page's words in its language, French where English lacks one, the key where both do.
function t(key, ...args) {
  const text = WORDS[lang][key] ?? WORDS.fr[key] ?? key;
  return text.replace(/\{(\d)\}/g, (_, i) => String(args[Number(i)]));
}

const locale = () => (lang === "fr" ? "fr-FR" : "en-GB");

// Numbers as each language writes them: 2 623,9 and 39,6° in French, 2,623.9 in English.
const formats = {};
function formatNumber(x, digits) {
  const key = `${lang}:${digits}`;
  formats[key] ??= new Intl.NumberFormat(locale(), { maximumFractionDigits: digits });
  return formats[key].format(x);
}

// A DOM node from a tag, its properties and children (text only: names never become HTML).
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}
