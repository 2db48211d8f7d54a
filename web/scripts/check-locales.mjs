#!/usr/bin/env node
// Checks every translation file against English: the same keys (plural keys carry exactly the plural
// categories of their language, as Intl.PluralRules reports them), the same placeholders and tags, no
// empty text. Used by the locale unit tests and by translators: `node web/scripts/check-locales.mjs [lang…]`.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The two translation sets: the web app's and the servers' (e-mails, plan names, speaker labels). */
export const LOCALE_DIRS = {
  web: path.join(root, "web/src/locales"),
  server: path.join(root, "services/shared/src/server/i18n/locales"),
};
const PLURAL = /_(zero|one|two|few|many|other)$/;

export function flatten(tree, prefix = "", out = new Map()) {
  for (const [k, v] of Object.entries(tree)) {
    if (typeof v === "string") out.set(prefix + k, v);
    else if (v && typeof v === "object" && !Array.isArray(v)) flatten(v, `${prefix}${k}.`, out);
    else out.set(prefix + k, v);
  }
  return out;
}

export function loadLocales(set) {
  const dir = LOCALE_DIRS[set];
  const out = {};
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    out[f.slice(0, -5)] = flatten(JSON.parse(readFileSync(path.join(dir, f), "utf8")));
  }
  return out;
}

/** {{name}} / {{name, format}} placeholders and <tag> names, sorted. */
export const placeholders = (s) =>
  [...String(s).matchAll(/\{\{\s*(\w+)\s*(?:,[^}]*)?\}\}|<(\w+)>/g)].map((m) => m[1] ?? m[2]).sort();

const baseKey = (k) => k.replace(PLURAL, "");
const categories = (lang) => new Intl.PluralRules(lang).resolvedOptions().pluralCategories;

/** Problems of one language against English, as readable lines (empty when all is well). */
export function checkLocale(locales, lang) {
  const en = locales.en;
  const map = locales[lang];
  const problems = [];
  const enPlural = new Set([...en.keys()].filter((k) => PLURAL.test(k)).map(baseKey));
  const expected = new Map();
  for (const [k, v] of en) {
    if (PLURAL.test(k)) {
      if (!k.endsWith("_other")) continue;
      for (const c of categories(lang)) expected.set(`${baseKey(k)}_${c}`, v);
    } else expected.set(k, v);
  }
  for (const k of expected.keys()) if (!map.has(k)) problems.push(`${lang}: missing key ${k}`);
  for (const [k, v] of map) {
    const ref = expected.get(k);
    if (ref === undefined) {
      const hint = enPlural.has(baseKey(k)) ? ` (plural categories of ${lang}: ${categories(lang).join(", ")})` : "";
      problems.push(`${lang}: extra key ${k}${hint}`);
      continue;
    }
    if (typeof v !== "string" || v.trim() === "") {
      problems.push(`${lang}: empty or non-text value at ${k}`);
      continue;
    }
    const want = placeholders(ref).join(",");
    const got = placeholders(v).join(",");
    if (want !== got) problems.push(`${lang}: placeholders of ${k} are [${got}], English has [${want}]`);
  }
  return problems;
}

/** Share of English keys whose text in `lang` is different from the English text. */
export function differingShare(locales, lang) {
  let same = 0;
  let total = 0;
  for (const [k, v] of locales.en) {
    const other = locales[lang].get(k) ?? locales[lang].get(k.replace(/_one$/, "_other"));
    if (other === undefined) continue;
    total++;
    if (other === v) same++;
  }
  return total === 0 ? 0 : (total - same) / total;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const wanted = process.argv.slice(2);
  let bad = 0;
  for (const set of Object.keys(LOCALE_DIRS)) {
    const locales = loadLocales(set);
    for (const lang of Object.keys(locales)) {
      if (lang === "en" || (wanted.length && !wanted.includes(lang))) continue;
      const problems = checkLocale(locales, lang);
      bad += problems.length;
      for (const p of problems) console.log(`[${set}] ${p}`);
      console.log(
        `[${set}] ${lang}: ${problems.length} problem(s), ${(100 * differingShare(locales, lang)).toFixed(0)}% of texts differ from English`,
      );
    }
  }
  process.exitCode = bad ? 1 : 0;
}
