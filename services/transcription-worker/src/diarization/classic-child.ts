// The classic diarization engine's work, in its own process (forked by ClassicDiarizationEngine
// through runChild): reads the WAV, runs diarizeSamples, answers once and exits.
import { readFile } from "node:fs/promises";
import { readWavMono16k } from "../wav.ts";
import { serveOnce } from "./child.ts";
import { diarizeSamples } from "./classic.ts";

serveOnce(async (input: { wavPath: string; speech: Array<{ start: number; end: number }>; speakers?: number }) =>
  diarizeSamples(readWavMono16k(await readFile(input.wavPath)), input.speech, input.speakers),
);
