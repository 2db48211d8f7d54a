/**
 * The embedded default engine: no model, no network. Extractive summary (summarize.ts) and key-phrase
 * titles and headings (titles.ts). Its output passes the same checks as a model's; a result that
 * would not is reported as a failed generation rather than returned.
 */
import { AppError } from "@kikitori/shared";
import { checkSummary, checkTitles, describeFailure } from "./checks.ts";
import type { SummaryInput, TextEngine, TitlesInput, TitlesOutput } from "./port.ts";
import { summarizeOffline } from "./summarize.ts";
import { titlesOffline } from "./titles.ts";

export class OfflineTextEngine implements TextEngine {
  readonly name = "offline";

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
    const out = titlesOffline(input);
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
