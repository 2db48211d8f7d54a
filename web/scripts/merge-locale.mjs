#!/usr/bin/env node
// Deep-merges keys into web/src/locales/<lang>.json in one read-modify-write, keeping the file's
// key order and 2-space formatting. Usage: node web/scripts/merge-locale.mjs <lang> <keys.json>
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [lang, keysFile] = process.argv.slice(2);
if (!lang || !keysFile) {
  console.error("usage: merge-locale.mjs <lang> <keys.json>");
  process.exit(2);
}
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src/locales");
const target = path.join(dir, `${lang}.json`);
const merge = (a, b) => {
  for (const [k, v] of Object.entries(b)) {
    if (v && typeof v === "object" && !Array.isArray(v) && a[k] && typeof a[k] === "object") merge(a[k], v);
    else a[k] = v;
  }
  return a;
};
const current = JSON.parse(readFileSync(target, "utf8"));
const merged = merge(current, JSON.parse(readFileSync(keysFile, "utf8")));
const tmp = `${target}.${process.pid}.tmp`;
writeFileSync(tmp, `${JSON.stringify(merged, null, 2)}\n`);
renameSync(tmp, target);
console.log(`merged ${keysFile} into ${path.relative(process.cwd(), target)}`);
