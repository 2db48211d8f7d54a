#!/usr/bin/env node
// Writes web/src/i18n/language-names.json: the name of every Whisper audio language in every interface
// language, from Node's Intl.DisplayNames (full ICU). The web app names languages with the browser's
// Intl.DisplayNames and falls back to this table where the browser's ICU lacks a name (Chromium's
// trimmed ICU has no Bashkir or Tibetan, for one). Only names that differ from the code are kept.
// Run after adding an interface language: `node web/scripts/language-names.mjs`.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const speech = readFileSync(path.join(root, "services/shared/src/speech.ts"), "utf8");
const table = speech.slice(speech.indexOf("WHISPER_LANGUAGES = ["), speech.indexOf("] as const;"));
const codes = [...table.matchAll(/\["([a-z]+)", "/g)].map((m) => m[1]);
const BCP47 = { jw: "jv" };
const interfaces = readdirSync(path.join(root, "web/src/locales"))
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -5))
  .sort();
const out = {};
for (const ui of interfaces) {
  const names = new Intl.DisplayNames([ui], { type: "language", fallback: "none" });
  out[ui] = {};
  for (const code of codes) {
    const name = names.of(BCP47[code] ?? code);
    if (name && name.toLowerCase() !== code) out[ui][code] = name;
  }
}
writeFileSync(path.join(root, "web/src/i18n/language-names.json"), `${JSON.stringify(out, null, 0)}\n`);
console.log(`${interfaces.length} interface languages × ${codes.length} audio languages`);
