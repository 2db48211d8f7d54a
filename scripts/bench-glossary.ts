// `npm run bench:glossary`: time of applyGlossary (services/shared/src/glossary.ts) on a 100,000-character
// transcript built from the test corpus (English and Japanese) with a glossary of 500 terms (single
// words, names of several words, near spellings planted in the text). Target: well under 100 ms.
import { readFileSync } from "node:fs";
import path from "node:path";
import { applyGlossary } from "@kikitori/shared";

const DIR = path.resolve(import.meta.dirname, "../services/text-worker/test/fixtures/text-corpus");
const SOURCES: Record<string, string[]> = {
  en: ["en-article-heat.txt", "en-interview-reefs.txt", "en-meeting-product.txt"],
  ja: ["ja-article-remote.txt", "ja-interview-farm.txt", "ja-meeting-product.txt"],
};
const SIZE = 100_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** 500 terms: made-up names (one to three words) and, for English, words of the corpus in capitals. */
function glossary(text: string, lang: string): string[] {
  const syllables = ["ka", "ri", "to", "mo", "lan", "ber", "sio", "vek", "dra", "nu", "quel", "zor"];
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const word = () => {
    const w = Array.from({ length: 2 + rnd(3) }, () => syllables[rnd(syllables.length)]).join("");
    return w[0].toUpperCase() + w.slice(1);
  };
  const terms = new Set<string>();
  const corpusWords = lang === "ja" ? [] : [...new Set(text.match(/[a-z]{6,}/g) ?? [])].slice(0, 100);
  for (const w of corpusWords) terms.add(w.toUpperCase());
  while (terms.size < 500) terms.add(Array.from({ length: 1 + rnd(3) }, word).join(" "));
  return [...terms];
}

for (const [lang, files] of Object.entries(SOURCES)) {
  const corpus = files.map((f) => readFileSync(path.join(DIR, f), "utf8")).join("\n\n");
  let text = "";
  while (text.length < SIZE) text += `${corpus}\n\n`;
  text = text.slice(0, SIZE);
  const terms = glossary(text, lang);
  // Plant some terms in lower case, without spaces and misspelt by a letter.
  const planted = terms.slice(-20).map((t, i) => (i % 2 ? t.toLowerCase() : t.replace(/ /g, "").replace(/a/, "e")));
  text = planted.reduce((acc, p, i) => acc.slice(0, i * 4000) + ` ${p} ` + acc.slice(i * 4000), text);
  const times: number[] = [];
  const cpu: number[] = [];
  let fixes = 0;
  for (let r = 0; r < RUNS; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fixes = applyGlossary(text, terms, lang).fixes.length;
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1);
  console.log(
    `glossary ${lang}: ${text.length} chars, ${terms.length} terms, ${fixes} fixes: first ${times[0].toFixed(1)} ms (index built), median ${median(times)} ms wall, ${median(cpu)} ms CPU`,
  );
}
