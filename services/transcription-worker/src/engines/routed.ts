import { AppError } from "@kikitori/shared";
import type { EngineResult, TranscribeOptions, TranscriptionEngine } from "./port.ts";
import { preferenceOf, type RoutableKind, type RouteCandidate, routedAroundFor } from "./routes.ts";

const takes = (e: TranscriptionEngine, language: string) => e.languages === "all" || e.languages.includes(language);

/**
 * `auto`: one engine per audio language, behind the same port (handlers do not change). Each chunk
 * goes to the best engine here for its language (routes.ts: Parakeet, SenseVoice, Whisper,
 * pocketsphinx for English). With language "auto" the handler has Whisper detect the language once
 * (detectLanguage); a chunk that still says "auto" goes to Whisper, else to SenseVoice (which tells
 * its five languages apart). Every engine given is usable: those that failed their check at start
 * were left out by createSpeechEngine, and are among `candidates` with their failure, so the engine
 * can say which languages are routed around them.
 */
export class RoutedEngine implements TranscriptionEngine {
  readonly kind = "auto" as const;
  readonly name: string;
  readonly languages: "all" | readonly string[];
  private readonly byKind: Map<RoutableKind, TranscriptionEngine>;
  private readonly failed: readonly RouteCandidate[];

  constructor(engines: ReadonlyMap<RoutableKind, TranscriptionEngine>, candidates: readonly RouteCandidate[] = []) {
    this.byKind = new Map(engines);
    this.failed = candidates.filter((c) => c.failure !== null);
    const all = [...this.byKind.values()];
    // Stored on each job (at most 64 characters): the engines by kind; their models are in the status.
    this.name = `auto:${[...this.byKind.keys()].join("+")}`;
    this.languages = all.some((e) => e.languages === "all")
      ? "all"
      : [...new Set(all.flatMap((e) => (e.languages === "all" ? [] : [...e.languages])))];
  }

  /** The engine a chunk in `language` goes to, or null when none here takes it. */
  engineFor(language: string): TranscriptionEngine | null {
    if (language === "auto") return this.byKind.get("whisper") ?? this.byKind.get("sensevoice") ?? null;
    for (const kind of preferenceOf(language)) {
      const e = this.byKind.get(kind);
      if (e && takes(e, language)) return e;
    }
    return null;
  }

  /** True when a better engine for `language` failed to load at start and a lower one here takes it. */
  routedAround(language: string): boolean {
    const engine = this.engineFor(language);
    if (!engine || language === "auto") return false;
    const usable = [...this.byKind].map(([kind, e]) => ({
      kind,
      languages: e.languages,
      model: e.name,
      usable: true,
      pull: null,
      failure: null,
    }));
    return routedAroundFor(language, [...this.failed, ...usable]) !== null;
  }

  async check(): Promise<void> {
    for (const e of this.byKind.values()) await e.check();
  }

  async transcribe(wavPath: string, opts: TranscribeOptions): Promise<EngineResult> {
    const engine = this.engineFor(opts.language);
    if (!engine)
      throw new AppError(
        "VALIDATION_FAILED",
        `no speech engine here takes the audio language "${opts.language}" (engines: ${this.name})`,
      );
    return engine.transcribe(wavPath, opts);
  }

  async detectLanguage(wavPath: string, opts: { signal?: AbortSignal } = {}): Promise<string | null> {
    const whisper = this.byKind.get("whisper");
    if (whisper?.detectLanguage) return whisper.detectLanguage(wavPath, opts);
    const sensevoice = this.byKind.get("sensevoice");
    if (!sensevoice) return null;
    const r = await sensevoice.transcribe(wavPath, { language: "auto", fileType: "", signal: opts.signal });
    return r.language;
  }

  async close(): Promise<void> {
    await Promise.all([...this.byKind.values()].map((e) => e.close?.()));
  }
}
