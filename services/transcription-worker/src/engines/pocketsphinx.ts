import { execFile } from "node:child_process";
import { access } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { AppError } from "@kikitori/shared";
import { onPath } from "@kikitori/shared/server";
import type { TranscribeOptions, TranscriptionEngine } from "./port.ts";

const run = promisify(execFile);

/**
 * CMU PocketSphinx (Debian `pocketsphinx` + `pocketsphinx-en-us`), fully offline. English only:
 * another language fails at once with a message naming the setting to change. Quality: rough
 * (word error rate around 10–40 % depending on the recording), no punctuation or casing.
 */
export class PocketSphinxEngine implements TranscriptionEngine {
  readonly name = "pocketsphinx";
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

  async transcribe(wavPath: string, opts: TranscribeOptions): Promise<string> {
    if (!opts.language.toLowerCase().startsWith("en")) {
      throw new AppError(
        "TRANSCRIPTION_LANGUAGE_UNSUPPORTED",
        `The offline engine (pocketsphinx) only transcribes English, not "${opts.language}". Set TRANSCRIPTION_ENGINE=openai with OPENAI_BASE_URL pointing at a Whisper-compatible server to transcribe other languages.`,
        { retryable: false },
      );
    }
    const { stdout } = await run(this.cfg.bin, ["-infile", wavPath, ...this.args, "-logfn", "/dev/null"], {
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .join(" ");
  }
}
