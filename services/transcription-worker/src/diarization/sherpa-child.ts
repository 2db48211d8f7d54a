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

serveOnce(async (input: Input) => {
  for (const file of [input.models.segmentation, input.models.embedding]) {
    await access(file).catch(() => {
      throw new Error(`diarization model missing: ${file} (run: npm run models -- pull diarization)`);
    });
  }
  const sherpa = require("sherpa-onnx-node") as {
    OfflineSpeakerDiarization: new (
      config: unknown,
    ) => { sampleRate: number; process(samples: Float32Array): Array<{ start: number; end: number; speaker: number }> };
  };
  let sd: InstanceType<typeof sherpa.OfflineSpeakerDiarization>;
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
  if (input.check || !input.wavPath) return [];
  const samples = readWavMono16k(await readFile(input.wavPath));
  return sd.process(samples).map((s) => ({ start: s.start, end: s.end, speaker: s.speaker }));
});
