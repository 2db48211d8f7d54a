/**
 * `npm run bench:fidelity`, in two parts.
 *
 * 1. The check itself (services/shared/src/fidelity.ts, see scripts/fidelity-planted.ts): generated
 *    two-voice interviews in English and Japanese, timed segments with speakers, fillers and stutters,
 *    and their clean verbatim interview text; each interview also with planted faults (an answer built
 *    only from words said elsewhere, an answer under the interviewer's name, an answer left out, an
 *    expanded contraction). It prints how many planted faults of each kind the check catches, the
 *    false flags on the untouched interviews (per 10,000 characters) and on the offline engine's
 *    clean verbatim text of the same recordings (as the product writes it), and the time of one report on a
 *    50,000-character interview, in this process and through the gateway's worker thread (min / median).
 *
 * 2. Both correction engines measured by the check on the correction test transcripts
 *    (services/text-worker/test/fixtures: pocketsphinx-like and Whisper-like English, Japanese,
 *    German), each with no tone and with the formal tone: the share of sentences supported, and the
 *    sentences flagged as invented, reworded and the raw passages flagged as dropped.
 *
 * The offline engine always runs. The openai engine runs when OPENAI_API_KEY (and, for a local
 * server such as Ollama or vLLM, OPENAI_BASE_URL) and CORRECTION_MODEL are set; otherwise it is
 * reported as not measured (no model can be reached from this machine).
 */
import { type FidelityReport, fidelityReport } from "@kikitori/shared";
import { createFidelityService } from "../services/gateway/src/workspace/fidelity.ts";
import {
  type CorrectionEngine,
  type CorrectionInput,
  OfflineCorrectionEngine,
} from "../services/text-worker/src/correction/index.ts";
import { OpenAiCorrectionEngine } from "../services/text-worker/src/correction/openai.ts";
import { heardSpeakers } from "../services/text-worker/src/handlers/correct.ts";
import {
  FIXTURE_LANGUAGE,
  FIXTURES,
  type FixtureName,
  fixture,
} from "../services/text-worker/test/fixtures/correction-transcripts.ts";
import { FAULTS, type FaultKind, generateInterview, plantFaults } from "./fidelity-planted.ts";

const print = (rows: string[][]) => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  for (const r of rows)
    console.log(
      r
        .map((c, i) => (c ?? "").padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    );
};
const ms = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0].toFixed(0)} / ${s[s.length >> 1].toFixed(0)} ms`;
};

/** Every flag a report raises. */
const flagCount = (r: FidelityReport) =>
  r.invented.length + r.misattributed.length + r.reworded.length + r.dropped.length;

// Part 1: planted faults.
const SEEDS = 8;
console.log(`Planted faults (generated interviews, ${FAULTS.length} faults each, ${SEEDS} per language)\n`);
const planted: string[][] = [
  [
    "language",
    "interviews",
    "chars",
    ...FAULTS.map((f) => `${f} caught`),
    "false flags (untouched)",
    "per 10k chars",
    "false flags (offline engine's text)",
    "other flags (planted)",
  ],
];
for (const language of ["en", "ja"] as const) {
  const caught = new Map<FaultKind, [number, number]>(FAULTS.map((f) => [f, [0, 0]]));
  let chars = 0;
  let falseFlags = 0;
  let otherFlags = 0;
  let engineFlags = 0;
  let engineChars = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const iv = generateInterview(language, seed, 6000);
    const clean = fidelityReport(iv.raw, iv.interview, iv.options);
    chars += iv.interview.length;
    falseFlags += flagCount(clean);
    const p = plantFaults(iv, seed);
    const r = fidelityReport(iv.raw, p.interview, iv.options);
    for (const fault of p.faults) {
      const c = caught.get(fault.kind) as [number, number];
      c[1]++;
      if (fault.caught(r)) c[0]++;
    }
    otherFlags += p.otherFlags(r);
    // The same recording as the product would write it: the offline engine on the heard turns.
    const heard = heardSpeakers(
      { segments: iv.segments, interviewer: iv.names[0], interviewee: iv.names[1], language, speakers: [] },
      language,
    );
    if (heard) {
      const { text } = await new OfflineCorrectionEngine().correct({
        transcript: iv.raw,
        language,
        interviewer: iv.names[0],
        interviewee: iv.names[1],
        tone: null,
        interviewExample: "",
        fileType: "meeting",
        turns: heard.turns,
      });
      const e = fidelityReport(iv.raw, text, {
        ...iv.options,
        speakerNames: heard.speakers.map((x) => x.name),
        speakers: heard.speakers.map((x) => ({ id: x.id, name: x.name })),
      });
      engineChars += text.length;
      engineFlags += flagCount(e);
    }
  }
  planted.push([
    language,
    String(SEEDS),
    String(chars),
    ...FAULTS.map((f) => (caught.get(f) as [number, number]).join(" / ")),
    String(falseFlags),
    ((falseFlags / chars) * 10_000).toFixed(2),
    `${engineFlags} in ${engineChars} chars`,
    String(otherFlags),
  ]);
}
print(planted);

console.log("\nTime of one report on a 50,000-character interview (7 runs each)\n");
const timing: string[][] = [["language", "chars", "in process (min / median)", "worker thread (min / median)"]];
const service = createFidelityService({ concurrency: 1 });
for (const language of ["en", "ja"] as const) {
  const iv = generateInterview(language, 99, 50_000);
  const local: number[] = [];
  const thread: number[] = [];
  for (let i = 0; i < 7; i++) {
    let t0 = performance.now();
    fidelityReport(iv.raw, iv.interview, iv.options);
    local.push(performance.now() - t0);
    t0 = performance.now();
    await service.report(`bench:${language}:${i}`, { raw: iv.raw, corrected: iv.interview, options: iv.options });
    thread.push(performance.now() - t0);
  }
  timing.push([language, String(iv.interview.length), ms(local), ms(thread)]);
}
// What the thread costs by itself: a report on a two-line interview (starting the thread, and in
// development tsx compiling its modules; the image runs a prebuilt bundle).
const tiny: number[] = [];
for (let i = 0; i < 7; i++) {
  const t0 = performance.now();
  await service.report(`bench:tiny:${i}`, {
    raw: "so um we opened",
    corrected: "We opened.",
    options: { language: "en" },
  });
  tiny.push(performance.now() - t0);
}
timing.push(["(thread start only)", "10", "-", ms(tiny)]);
print(timing);
console.log("\nCorrection engines on the correction test transcripts\n");

const NAMES = { interviewer: "Sarah", interviewee: "David Okafor" };

const engines: Array<{ name: string; engine: CorrectionEngine | null }> = [
  { name: "offline", engine: new OfflineCorrectionEngine() },
  {
    name: "openai",
    engine: process.env.OPENAI_API_KEY
      ? new OpenAiCorrectionEngine({
          baseURL: process.env.OPENAI_BASE_URL || undefined,
          apiKey: process.env.OPENAI_API_KEY,
          model: process.env.CORRECTION_MODEL ?? "gpt-4o-mini",
          sectionChars: 6000,
          timeoutMs: 120_000,
        })
      : null,
  },
];

const rows: string[][] = [["engine", "transcript", "tone", "fidelity", "sentences", "invented", "reworded", "dropped"]];
for (const { name, engine } of engines) {
  if (!engine) {
    rows.push([
      name,
      "(all)",
      "-",
      "not measured: set OPENAI_API_KEY (and OPENAI_BASE_URL, CORRECTION_MODEL)",
      "",
      "",
      "",
      "",
    ]);
    continue;
  }
  const figures: number[] = [];
  for (const key of Object.keys(FIXTURES) as FixtureName[]) {
    const raw = fixture(key);
    for (const tone of [null, "formal"] as const) {
      const input: CorrectionInput = {
        transcript: raw,
        language: FIXTURE_LANGUAGE[key],
        ...NAMES,
        tone,
        interviewExample: "",
        fileType: "meeting",
      };
      const { text } = await engine.correct(input);
      const r = fidelityReport(raw, text, { language: FIXTURE_LANGUAGE[key], speakerNames: Object.values(NAMES) });
      figures.push(r.figure ?? 0);
      rows.push([
        name,
        key,
        tone ?? "none",
        (r.figure ?? 0).toFixed(3),
        String(r.sentenceCount),
        String(r.invented.length),
        String(r.reworded.length),
        String(r.dropped.length),
      ]);
    }
  }
  figures.sort((a, b) => a - b);
  rows.push([
    name,
    "(all)",
    "min / median",
    `${figures[0].toFixed(3)} / ${figures[figures.length >> 1].toFixed(3)}`,
    "",
    "",
    "",
    "",
  ]);
}

print(rows);
