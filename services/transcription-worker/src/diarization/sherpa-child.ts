// The sherpa diarization engine's work, in its own process (forked by SherpaDiarizationEngine through
// runChild): loads the models, and either only checks them or diarizes one WAV, answers and exits.
import { access, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { readWavMono16k } from "../wav.ts";
import { serveOnce } from "./child.ts";

interface Input {
  models: { segmentation: string; embedding: string };
  check?: boolean;
  wavPath?: string;
  speakers?: number;
  threshold?: number;
}

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
  const samples = readWavMono16k(await readFile(input.wavPath));
  return sd.process(samples).map((s) => ({ start: s.start, end: s.end, speaker: s.speaker }));
});
