import { describe, expect, it } from "@jest/globals";
import { ERROR_CODES } from "@kikitori/shared";
import en from "./en.json" with { type: "json" };
import ja from "./ja.json" with { type: "json" };

type Tree = { [k: string]: string | Tree };

function flatten(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    if (typeof v === "string") out.set(prefix + k, v);
    else for (const [kk, vv] of flatten(v, `${prefix}${k}.`)) out.set(kk, vv);
  }
  return out;
}

const locales: Record<string, Map<string, string>> = { en: flatten(en as Tree), ja: flatten(ja as Tree) };
const placeholders = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}|<(\w+)>/g)].map((m) => m[1] ?? m[2]).sort();

describe("translations", () => {
  it("every language has exactly the English keys", () => {
    const keys = [...locales.en.keys()].sort();
    for (const [lang, map] of Object.entries(locales)) expect([lang, [...map.keys()].sort()]).toEqual([lang, keys]);
  });

  it("every API error code has a message", () => {
    for (const map of Object.values(locales)) {
      for (const code of Object.keys(ERROR_CODES)) expect(map.get(`errors.${code}`)).toBeTruthy();
    }
  });

  it("no translation is empty and placeholders match English", () => {
    for (const [lang, map] of Object.entries(locales)) {
      for (const [key, value] of map) {
        expect([lang, key, value.trim().length > 0]).toEqual([lang, key, true]);
        expect([lang, key, placeholders(value)]).toEqual([lang, key, placeholders(locales.en.get(key) ?? "")]);
      }
    }
  });
});
