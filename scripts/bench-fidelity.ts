/**
 * `npm run bench:fidelity`: both correction engines measured by the workspace's fidelity check
 * (services/shared/src/fidelity.ts) on the correction test transcripts
 * (services/correction-worker/test/fixtures: pocketsphinx-like and Whisper-like English, Japanese,
 * German), each with no tone and with the formal tone. Per transcript it prints the share of the
 * interview's content words found in the raw transcript, the sentences flagged as possibly invented
 * and the raw sentences flagged as dropped.
 *
 * The offline engine always runs. The openai engine runs when OPENAI_API_KEY (and, for a local
 * server such as Ollama or vLLM, OPENAI_BASE_URL) and CORRECTION_MODEL are set; otherwise it is
 * reported as not measured (no model can be reached from this machine).
 */
import { fidelityReport } from "@kikitori/shared";
import {
  type CorrectionEngine,
  type CorrectionInput,
  OfflineCorrectionEngine,
} from "../services/correction-worker/src/correction/index.ts";
import { OpenAiCorrectionEngine } from "../services/correction-worker/src/correction/openai.ts";
import {
  FIXTURE_LANGUAGE,
  FIXTURES,
  type FixtureName,
  fixture,
} from "../services/correction-worker/test/fixtures/correction-transcripts.ts";

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

const rows: string[][] = [["engine", "transcript", "tone", "fidelity", "content words", "invented", "dropped"]];
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
        String(r.contentWords),
        String(r.invented.length),
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
  ]);
}

const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
for (const r of rows)
  console.log(
    r
      .map((c, i) => (c ?? "").padEnd(widths[i]))
      .join("  ")
      .trimEnd(),
  );
