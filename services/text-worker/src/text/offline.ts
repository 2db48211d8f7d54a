/**
 * The embedded default engine: no model, no network. Extractive summary (summarize.ts) and key-phrase
 * titles and headings (titles.ts). Its output passes the same checks as a model's; a result that
 * would not is reported as a failed generation rather than returned.
 */
import { createHash } from "node:crypto";
import { AppError } from "@kikitori/shared";
import { checkSummary, checkTitles, describeFailure } from "./checks.ts";
import type { SummaryInput, TextEngine, TitlesInput, TitlesOutput } from "./port.ts";
import { summarizeOffline } from "./summarize.ts";
import { titlesOffline } from "./titles.ts";

/** How many repeated title runs are remembered (oldest forgotten first). */
const REMEMBERED_RUNS = 2000;

export class OfflineTextEngine implements TextEngine {
  readonly name = "offline";
  /**
   * Title runs seen per request (text, request, counts): pressing Generate again on the same text gets
   * the next combinations instead of the same titles. Per process, so only a hint with several workers.
   */
  private readonly titleRuns = new Map<string, number>();

  async summarize(input: SummaryInput): Promise<string> {
    const summary = summarizeOffline(input);
    const failures = checkSummary(summary, input);
    if (failures.length) {
      throw new AppError("GENERATION_FAILED", "Failed to generate the summary.", {
        retryable: false,
        details: failures.map(describeFailure),
      });
    }
    return summary;
  }

  async titles(input: TitlesInput): Promise<TitlesOutput> {
    const key = createHash("sha256")
      .update(JSON.stringify([input.text, input.customPrompt, input.numTitles, input.numHeadings, input.language]))
      .digest("base64url");
    const variant = this.titleRuns.get(key) ?? 0;
    this.titleRuns.delete(key);
    this.titleRuns.set(key, variant + 1);
    if (this.titleRuns.size > REMEMBERED_RUNS) this.titleRuns.delete(this.titleRuns.keys().next().value as string);
    const out = titlesOffline({ ...input, variant });
    const failures = checkTitles(out, input);
    if (failures.length) {
      throw new AppError("GENERATION_FAILED", "Failed to generate titles and headings.", {
        retryable: false,
        details: failures.map(describeFailure),
      });
    }
    return out;
  }
}
