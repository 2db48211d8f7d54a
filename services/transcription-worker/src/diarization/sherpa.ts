import type { SpeechSpan } from "../vad.ts";
import { childModule, runChild } from "./child.ts";
import { SHERPA_ENGINE_NAME, type SherpaModelPaths } from "./models.ts";
import {
  type DiarizationEngine,
  type DiarizeOptions,
  MAX_SPEAKERS,
  normalizeSpeakerSpans,
  type SpeakerSpan,
} from "./port.ts";
import type { SherpaChildAnswer } from "./sherpa-child.ts";
import { diarizationWindows, linkWindowVoices, WINDOW_SECONDS } from "./windows.ts";

const CHILD = childModule("sherpa-child", import.meta.url);

/** Clustering threshold when the speaker count is not given (sherpa-onnx's example value). */
const THRESHOLD = 0.5;
/** How alike (cosine) two windows' voices must be to be one speaker, when the count is not given. */
const LINK_THRESHOLD = 0.5;

/**
 * `sherpa`: sherpa-onnx's offline speaker diarization (pyannote segmentation-3.0 + TitaNet-small
 * speaker embeddings + clustering), with a fixed speaker count or a threshold. Its `process()`
 * blocks the thread it runs on and the native code aborts the process on some bad inputs, so it runs
 * in a child process, killed on abort. Speech outside the VAD's spans is dropped from its answer.
 * A long recording is diarized in windows of at most `windowSeconds` (only one window's samples in
 * memory), whose speakers are then linked by voice (diarization/windows.ts).
 */
export class SherpaDiarizationEngine implements DiarizationEngine {
  readonly name = SHERPA_ENGINE_NAME;
  readonly kind = "sherpa" as const;

  constructor(
    private readonly models: SherpaModelPaths,
    private readonly windowSeconds = WINDOW_SECONDS,
  ) {}

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
    const windows = diarizationWindows(speech, this.windowSeconds);
    const answer = await runChild<SherpaChildAnswer>(
      CHILD,
      { models: this.models, wavPath, windows, speakers: opts.speakers, threshold: THRESHOLD },
      opts.signal,
    );
    const global = linkWindowVoices(answer.voices, {
      speakers: opts.speakers,
      threshold: LINK_THRESHOLD,
      maxSpeakers: MAX_SPEAKERS,
    });
    const speakerOf = new Map(answer.voices.map((v, i) => [`${v.window}:${v.local}`, global[i]]));
    const spans = answer.segments.map((s) => ({
      start: s.start,
      end: s.end,
      speaker: speakerOf.get(`${s.window}:${s.local}`) ?? s.local,
    }));
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
