// The sherpa diarization engine's work, in its own process (forked by SherpaDiarizationEngine through
// runChild): loads the models, and either only checks them or diarizes one WAV, answers and exits.
import { access } from "node:fs/promises";
import { createRequire } from "node:module";
import { openWavMono16k } from "../wav.ts";
import { serveOnce } from "./child.ts";
import type { DiarizationWindow } from "./windows.ts";

interface Input {
  models: { segmentation: string; embedding: string };
  check?: boolean;
  wavPath?: string;
  /** The stretches diarized one at a time (diarizationWindows); with more than one, each speaker's voice print is answered too. */
  windows?: DiarizationWindow[];
  speakers?: number;
  threshold?: number;
}

/** A diarized stretch: seconds of the recording, the window, and the speaker's number in that window. */
export interface WindowSegment {
  start: number;
  end: number;
  window: number;
  local: number;
}

export interface SherpaChildAnswer {
  segments: WindowSegment[];
  /** One per speaker per window (only when there are several windows). */
  voices: Array<{ window: number; local: number; vector: number[] }>;
}

/** The most speech of one speaker in one window its voice print is taken from (seconds). */
const VOICE_SECONDS = 60;
/** The least audio the embedding model is given (short voices are repeated up to it). */
const MIN_VOICE_SECONDS = 2;

const require = createRequire(import.meta.url);

interface SherpaNode {
  OfflineSpeakerDiarization: new (
    config: unknown,
  ) => { sampleRate: number; process(samples: Float32Array): Array<{ start: number; end: number; speaker: number }> };
  SpeakerEmbeddingExtractor: new (
    config: unknown,
  ) => {
    dim: number;
    createStream(): { acceptWaveform(w: { sampleRate: number; samples: Float32Array }): void; inputFinished(): void };
    compute(stream: unknown): Float32Array;
  };
}

/**
 * The start-up check runs both models once: loading alone proves little (the diarizer builds its
 * embedding extractor lazily, and a wrong input shape only shows on a run). Any fault kills this
 * process, which the parent reports as the models not loading.
 */
function tryBoth(sherpa: SherpaNode, sd: InstanceType<SherpaNode["OfflineSpeakerDiarization"]>, embedding: string) {
  let seed = 1;
  const noise = new Float32Array(sd.sampleRate * 2).map(() => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (seed / 2_147_483_648 - 0.5) * 0.1;
  });
  sd.process(noise);
  const extractor = new sherpa.SpeakerEmbeddingExtractor({ model: embedding, numThreads: 1, debug: 0 });
  const stream = extractor.createStream();
  stream.acceptWaveform({ sampleRate: sd.sampleRate, samples: noise });
  stream.inputFinished();
  const vector = extractor.compute(stream);
  if (vector.length !== extractor.dim || vector.some((v) => !Number.isFinite(v)))
    throw new Error(
      `diarization models could not be loaded: the embedding model answered ${vector.length} values, not ${extractor.dim}`,
    );
}

serveOnce(async (input: Input) => {
  for (const file of [input.models.segmentation, input.models.embedding]) {
    await access(file).catch(() => {
      throw new Error(`diarization model missing: ${file} (run: npm run models -- pull diarization)`);
    });
  }
  const sherpa = require("sherpa-onnx-node") as SherpaNode;
  let sd: InstanceType<SherpaNode["OfflineSpeakerDiarization"]>;
  try {
    sd = new sherpa.OfflineSpeakerDiarization({
      segmentation: { pyannote: { model: input.models.segmentation }, numThreads: 1, debug: 0 },
      embedding: { model: input.models.embedding, numThreads: 1, debug: 0 },
      clustering: { numClusters: input.speakers ?? -1, threshold: input.threshold ?? 0.5 },
      minDurationOn: 0.3,
      minDurationOff: 0.5,
    });
  } catch (err) {
    throw new Error(`diarization models could not be loaded (corrupt or wrong files?): ${(err as Error).message}`);
  }
  if (input.check || !input.wavPath) {
    tryBoth(sherpa, sd, input.models.embedding);
    return [];
  }
  const reader = await openWavMono16k(input.wavPath);
  try {
    const windows = input.windows ?? [{ start: 0, end: reader.samples / sd.sampleRate }];
    const answer: SherpaChildAnswer = { segments: [], voices: [] };
    const extractor =
      windows.length > 1
        ? new sherpa.SpeakerEmbeddingExtractor({ model: input.models.embedding, numThreads: 1, debug: 0 })
        : null;
    for (const [w, win] of windows.entries()) {
      // Only this window's samples are in memory.
      const samples = await reader.read(Math.floor(win.start * sd.sampleRate), Math.ceil(win.end * sd.sampleRate));
      const found = sd.process(samples);
      for (const s of found)
        answer.segments.push({ start: win.start + s.start, end: win.start + s.end, window: w, local: s.speaker });
      if (extractor) answer.voices.push(...voicesOf(extractor, samples, sd.sampleRate, found, w));
    }
    return answer;
  } finally {
    await reader.close();
  }
});

/** One voice print per speaker of a window: from up to VOICE_SECONDS of its longest stretches. */
function voicesOf(
  extractor: InstanceType<SherpaNode["SpeakerEmbeddingExtractor"]>,
  samples: Float32Array,
  rate: number,
  found: Array<{ start: number; end: number; speaker: number }>,
  window: number,
): SherpaChildAnswer["voices"] {
  const speakers = [...new Set(found.map((s) => s.speaker))].sort((a, b) => a - b);
  return speakers.map((local) => {
    const mine = found.filter((s) => s.speaker === local).sort((a, b) => b.end - b.start - (a.end - a.start));
    const parts: Float32Array[] = [];
    let taken = 0;
    for (const s of mine) {
      if (taken >= VOICE_SECONDS * rate) break;
      const part = samples.subarray(Math.floor(s.start * rate), Math.min(samples.length, Math.ceil(s.end * rate)));
      parts.push(part.subarray(0, VOICE_SECONDS * rate - taken));
      taken += Math.min(part.length, VOICE_SECONDS * rate - taken);
    }
    const need = Math.max(taken, MIN_VOICE_SECONDS * rate);
    const audio = new Float32Array(need);
    let o = 0;
    while (taken > 0 && o < need) {
      for (const p of parts) {
        const n = Math.min(p.length, need - o);
        audio.set(p.subarray(0, n), o);
        o += n;
        if (o >= need) break;
      }
    }
    const stream = extractor.createStream();
    stream.acceptWaveform({ sampleRate: rate, samples: audio });
    stream.inputFinished();
    return { window, local, vector: Array.from(extractor.compute(stream)) };
  });
}
