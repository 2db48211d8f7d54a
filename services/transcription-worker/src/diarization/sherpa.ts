import type { SpeechSpan } from "../vad.ts";
import { childModule, runChild } from "./child.ts";
import { SHERPA_ENGINE_NAME, type SherpaModelPaths } from "./models.ts";
import { type DiarizationEngine, type DiarizeOptions, normalizeSpeakerSpans, type SpeakerSpan } from "./port.ts";

const CHILD = childModule("sherpa-child", import.meta.url);

/** Clustering threshold when the speaker count is not given (sherpa-onnx's example value). */
const THRESHOLD = 0.5;

/**
 * `sherpa`: sherpa-onnx's offline speaker diarization (pyannote segmentation-3.0 + TitaNet-small
 * speaker embeddings + clustering), with a fixed speaker count or a threshold. Its `process()`
 * blocks the thread it runs on and the native code aborts the process on some bad inputs, so it runs
 * in a child process, killed on abort. Speech outside the VAD's spans is dropped from its answer.
 */
export class SherpaDiarizationEngine implements DiarizationEngine {
  readonly name = SHERPA_ENGINE_NAME;
  readonly kind = "sherpa" as const;

  constructor(private readonly models: SherpaModelPaths) {}

  /** Loads both models in a child: a missing or corrupt file fails here, at start, with its path. */
  async check(): Promise<void> {
    try {
      await runChild(CHILD, { models: this.models, check: true });
    } catch (err) {
      const why = (err as Error).message;
      throw new Error(
        why.startsWith("diarization model")
          ? why
          : `diarization models could not be loaded (${this.models.segmentation}, ${this.models.embedding}): ${why}`,
      );
    }
  }

  async diarize(wavPath: string, speech: SpeechSpan[], opts: DiarizeOptions = {}): Promise<SpeakerSpan[]> {
    if (speech.length === 0) return [];
    const spans = await runChild<SpeakerSpan[]>(
      CHILD,
      { models: this.models, wavPath, speakers: opts.speakers, threshold: THRESHOLD },
      opts.signal,
    );
    return normalizeSpeakerSpans(clipToSpeech(spans, speech));
  }
}

/** The parts of `spans` inside the speech. Pure. */
export function clipToSpeech(spans: SpeakerSpan[], speech: SpeechSpan[]): SpeakerSpan[] {
  const out: SpeakerSpan[] = [];
  for (const s of spans) {
    for (const v of speech) {
      const start = Math.max(s.start, v.start);
      const end = Math.min(s.end, v.end);
      if (end > start) out.push({ start, end, speaker: s.speaker });
    }
  }
  return out;
}
