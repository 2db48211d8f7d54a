import { execFile } from "node:child_process";
import { access } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { AppError } from "@kikitori/shared";
import { onPath } from "@kikitori/shared/server";
import type { EngineResult, EngineSegment, TranscribeOptions, TranscriptionEngine } from "./port.ts";

const run = promisify(execFile);

/**
 * CMU PocketSphinx (Debian `pocketsphinx` + `pocketsphinx-en-us`), fully offline. English only:
 * another language fails at once with a message naming the setting to change. Quality: rough
 * (word error rate around 10–40 % depending on the recording), no punctuation or casing.
 */
export class PocketSphinxEngine implements TranscriptionEngine {
  readonly name = "pocketsphinx";
  readonly kind = "pocketsphinx" as const;
  readonly languages = ["en"] as const;
  constructor(private readonly cfg: { bin: string; modelDir: string }) {}

  private get args(): string[] {
    const m = this.cfg.modelDir;
    return [
      "-hmm",
      path.join(m, "en-us"),
      "-lm",
      path.join(m, "en-us.lm.bin"),
      "-dict",
      path.join(m, "cmudict-en-us.dict"),
    ];
  }

  /** Set once the model and binary were found: readiness probes then cost nothing. */
  private ready = false;

  async check(): Promise<void> {
    if (this.ready) return;
    try {
      await access(path.join(this.cfg.modelDir, "en-us.lm.bin"));
    } catch {
      throw new Error(
        `pocketsphinx model not found in ${this.cfg.modelDir}: apt-get install pocketsphinx pocketsphinx-en-us (or set POCKETSPHINX_MODEL_DIR)`,
      );
    }
    if (!onPath(this.cfg.bin)) {
      throw new Error(`${this.cfg.bin} not found: apt-get install pocketsphinx (or set POCKETSPHINX_BIN)`);
    }
    this.ready = true;
  }

  async transcribe(wavPath: string, opts: TranscribeOptions): Promise<EngineResult> {
    // "auto" cannot be detected here: the engine hears English only, and says so on the screen.
    if (opts.language !== "auto" && !opts.language.toLowerCase().startsWith("en")) {
      throw new AppError(
        "TRANSCRIPTION_LANGUAGE_UNSUPPORTED",
        `The offline engine (pocketsphinx) only transcribes English, not "${opts.language}". Set WHISPER_MODEL (and MODELS_DIR) so the Whisper engine can load its model, or TRANSCRIPTION_ENGINE=openai with OPENAI_BASE_URL pointing at a Whisper-compatible server.`,
        { retryable: false },
      );
    }
    const { stdout } = await run(
      this.cfg.bin,
      ["-infile", wavPath, ...this.args, "-time", "yes", "-logfn", "/dev/null"],
      { timeout: 600_000, maxBuffer: 16 * 1024 * 1024, signal: opts.signal },
    );
    return { segments: parsePocketSphinxTimes(stdout), language: "en" };
  }
}

/** Fillers and markers in pocketsphinx's word list that are not words of the transcript. */
const NON_WORDS = /^(<s>|<\/s>|<sil>|\[.*\]|\+\+.*\+\+)$/i;

/**
 * Parses `pocketsphinx_continuous -time yes` output: per utterance a hypothesis line, then one line
 * per word "word start end confidence" (alternative pronunciations as "the(2)"). One segment per
 * utterance, with word times. Pure.
 */
export function parsePocketSphinxTimes(stdout: string): EngineSegment[] {
  const segments: EngineSegment[] = [];
  let words: NonNullable<EngineSegment["words"]> = [];
  const flush = () => {
    if (words.length > 0) {
      segments.push({
        start: words[0].start,
        end: words[words.length - 1].end,
        text: words.map((w) => w.text).join(" "),
        words,
      });
    }
    words = [];
  };
  for (const raw of stdout.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)$/.exec(line);
    if (!m) {
      flush(); // a hypothesis line starts the next utterance
      continue;
    }
    if (m[1] === "<s>") flush();
    const word = m[1].replace(/\(\d+\)$/, "");
    if (NON_WORDS.test(word)) continue;
    words.push({ start: Number(m[2]), end: Number(m[3]), text: word });
  }
  flush();
  return segments;
}
