// `npm run bench:text`: time of the offline text engine (summary and titles/headings) on texts of
// 1,000 / 10,000 / 100,000 characters, built from the test corpus. Target: ≤ 1 s at 10,000.
import { readFileSync } from "node:fs";
import path from "node:path";
import { charCount } from "@kikitori/shared";
import { checkSummary, checkTitles } from "../services/text-worker/src/text/checks.ts";
import { OfflineTextEngine } from "../services/text-worker/src/text/offline.ts";

const DIR = path.resolve(import.meta.dirname, "../services/text-worker/test/fixtures/text-corpus");
const SOURCES: Record<string, { files: string[]; phrases: [string, string] }> = {
  en: {
    files: ["en-article-heat.txt", "en-interview-reefs.txt", "en-meeting-product.txt"],
    phrases: ["street tree", "Paris"],
  },
  ja: {
    files: ["ja-article-remote.txt", "ja-interview-farm.txt", "ja-meeting-product.txt"],
    phrases: ["地方移住", "スマート農業"],
  },
  de: {
    files: ["de-artikel-waermepumpe.txt", "de-interview-baeckerei.txt", "de-protokoll-projekt.txt"],
    phrases: ["Jahresarbeitszahl", "Sauerteig"],
  },
  zh: {
    files: ["zh-article-bikes.txt", "zh-interview-bookstore.txt", "zh-meeting-weekly.txt"],
    phrases: ["共享单车", "独立书店"],
  },
};
const SIZES = [1_000, 10_000, 100_000];
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** Exactly `chars` characters: the sources, repeated as often as needed. */
function textOf(files: string[], chars: number): string {
  const all = files.map((f) => readFileSync(path.join(DIR, f), "utf8")).join("\n\n");
  let text = "";
  while (charCount(text) < chars) text += `${all}\n\n`;
  return [...text].slice(0, chars).join("");
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const times: number[] = [];
  let value!: T;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    value = await fn();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), value };
}

const engine = new OfflineTextEngine();
// Warm-up (ICU segmenters, JIT).
await engine.summarize({
  text: textOf(SOURCES.en.files, 2000),
  requiredPhrases: SOURCES.en.phrases,
  desiredLength: 1000,
});

console.log(`offline text engine, median of ${RUNS} runs (node ${process.versions.node})`);
console.log("lang  characters  desired  summary ms  titles ms  checks");
let worstAt10k = 0;
for (const [lang, src] of Object.entries(SOURCES)) {
  for (const size of SIZES) {
    const text = textOf(src.files, size);
    const n = charCount(text);
    const desiredLength = Math.min(n, size >= 10_000 ? (size >= 100_000 ? 10_000 : 3002) : 1000);
    const sum = await time(() => engine.summarize({ text, requiredPhrases: src.phrases, desiredLength }));
    const tit = await time(() => engine.titles({ text, numTitles: 3, numHeadings: 3, customPrompt: "" }));
    const ok =
      checkSummary(sum.value, { requiredPhrases: src.phrases, desiredLength }).length === 0 &&
      checkTitles(tit.value, { numTitles: 3, numHeadings: 3 }).length === 0;
    if (size === 10_000) worstAt10k = Math.max(worstAt10k, sum.ms, tit.ms);
    console.log(
      `${lang.padEnd(4)}  ${String(n).padStart(10)}  ${String(desiredLength).padStart(7)}  ${sum.ms.toFixed(1).padStart(10)}  ${tit.ms
        .toFixed(1)
        .padStart(9)}  ${ok ? "pass" : "FAIL"}`,
    );
  }
}
console.log(
  `10,000 characters: slowest ${worstAt10k.toFixed(1)} ms (target ≤ 1000 ms) → ${worstAt10k <= 1000 ? "OK" : "OVER"}`,
);
