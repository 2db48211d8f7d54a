// `npm run bench:diarization`: how well the `classic` speaker diarization engine tells two voices
// apart. Two-voice interviews of 20 turns are built from real recorded voices (Debian's
// pocketsphinx-testdata LibriVox reader and "cards" speaker, and the Kennedy excerpt whisper.cpp
// ships) and from two espeak-ng voices, with the truth of who speaks when; each goes through the
// worker's own path (ffmpeg-free: VAD on the WAV, then the engine) with the speaker count given (2,
// the transcription screen's default) and estimated (auto). Prints the diarization error rate (NIST
// style, 0.25 s collar), the turn count against the truth, and the engine's time as a share of the
// audio's duration.
//
//   npm run bench:diarization -- [--seeds=7,11,23] [--turns=20]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ClassicDiarizationEngine } from "../services/transcription-worker/src/diarization/classic.ts";
import { diarizationErrorRate, turnCount } from "../services/transcription-worker/src/diarization/der.ts";
import { detectSpeech } from "../services/transcription-worker/src/vad.ts";
import { buildInterview, espeakVoice, realVoiceClips, writeWav } from "../tests/support/two-voice.ts";

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const seeds = arg("seeds", "7,11,23").split(",").map(Number);
const turns = Number(arg("turns", "20"));

const QUESTIONS = [
  "Thank you for coming today.",
  "How did the project begin?",
  "What was the hardest part?",
  "And what comes next for you?",
  "That is very interesting.",
];
const ANSWERS = [
  "It started in a small garage with two friends.",
  "We had no money at all, so we built everything ourselves.",
  "The hardest part was finding the first customers.",
  "Next we want to open an office in Osaka.",
];

const real = realVoiceClips();
const pairs = {
  "LibriVox reader / cards speaker (real)": { a: real.librivox, b: real.cards },
  "LibriVox reader / Kennedy (real)": { a: real.librivox, b: real.jfk },
  "Kennedy / cards speaker (real)": { a: real.jfk, b: real.cards },
  "espeak-ng en+f3 / en+m3 (synthetic)": { a: espeakVoice("en+f3", QUESTIONS), b: espeakVoice("en+m3", ANSWERS) },
};

const engine = new ClassicDiarizationEngine();
const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-diar-"));
const rows: string[][] = [];
console.log(
  `# classic diarization bench: ${turns}-turn interviews, seeds ${seeds.join(", ")}; load average ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ")}`,
);
try {
  for (const [name, voices] of Object.entries(pairs)) {
    for (const speakers of [2, undefined]) {
      const ders: number[] = [];
      const counts: number[] = [];
      const found: number[] = [];
      let engineS = 0;
      let audioS = 0;
      for (const seed of seeds) {
        const iv = buildInterview(voices, turns, seed);
        const file = path.join(dir, `s${seed}.wav`);
        writeWav(file, iv.samples);
        const speech = await detectSpeech(file);
        const t0 = performance.now();
        const hyp = await engine.diarize(file, speech, { speakers });
        engineS += (performance.now() - t0) / 1000;
        audioS += iv.duration;
        const e = diarizationErrorRate(iv.truth, hyp);
        ders.push(e.der * 100);
        counts.push(turnCount(hyp));
        found.push(new Set(hyp.map((h) => h.speaker)).size);
        console.log(
          `${name}, ${speakers ?? "auto"} speakers, seed ${seed}: ${iv.duration.toFixed(0)} s, DER ${(e.der * 100).toFixed(1)} % ` +
            `(missed ${e.missed.toFixed(1)} s, false alarm ${e.falseAlarm.toFixed(1)} s, confusion ${e.confusion.toFixed(1)} s), ` +
            `turns ${turnCount(hyp)} / ${turnCount(iv.truth)}, speakers found ${found.at(-1)}`,
        );
      }
      const sorted = [...ders].sort((x, y) => x - y);
      rows.push([
        name,
        speakers ? String(speakers) : "auto",
        sorted.map((d) => d.toFixed(1)).join(", "),
        (ders.reduce((s, d) => s + d, 0) / ders.length).toFixed(1),
        counts.join(", "),
        found.join(", "),
        (engineS / audioS).toFixed(3),
      ]);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const head = [
  "voices",
  "speakers given",
  "DER % per interview (sorted)",
  "mean DER %",
  `turns found (truth ${turns})`,
  "speakers found",
  "engine s per audio s",
];
console.log(`\n| ${head.join(" | ")} |\n|${head.map(() => "---").join("|")}|`);
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
