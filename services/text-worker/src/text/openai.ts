/**
 * The model engine: chat completions through the `openai` SDK (any compatible server via
 * OPENAI_BASE_URL), answering in structured JSON. Every answer is checked (required phrases present
 * verbatim, length within ±10%, a finished last sentence, exact counts, titles distinct in wording and free of
 * the request's words that the text lacks); a failing answer is sent back with the
 * failures named and regenerated, at most TEXT_MAX_ATTEMPTS times in all.
 */
import { AppError, charCount, headingBlocks, nonEmptyPhrases, textLines } from "@kikitori/shared";
import { detectLanguage, languageName } from "@kikitori/shared/language";
import { createOpenAiClient, isRetryableStatus } from "@kikitori/shared/openai";
import { APIError, type OpenAI } from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { checkSummary, checkTitles, describeFailure, lengthBounds } from "./checks.ts";
import type { SummaryInput, TextEngine, TitlesInput, TitlesOutput } from "./port.ts";

export interface OpenAiEngineOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  maxAttempts: number;
  /** Per request, in ms. */
  timeoutMs?: number;
  /** Injected client (tests); otherwise one is built from the options. */
  client?: OpenAI;
}

const SUMMARY_SCHEMA = {
  type: "object",
  properties: { summary: { type: "string" } },
  required: ["summary"],
  additionalProperties: false,
} as const;

const TITLES_SCHEMA = {
  type: "object",
  properties: {
    titles: { type: "array", items: { type: "string" } },
    headings: { type: "array", items: { type: "string" } },
  },
  required: ["titles", "headings"],
  additionalProperties: false,
} as const;

export class OpenAiTextEngine implements TextEngine {
  readonly name: string;
  private readonly client: OpenAI;

  constructor(private readonly opts: OpenAiEngineOptions) {
    this.name = `openai:${opts.model}`.slice(0, 64);
    this.client =
      opts.client ??
      createOpenAiClient({
        apiKey: opts.apiKey,
        baseURL: opts.baseURL,
        timeoutMs: opts.timeoutMs ?? 90_000,
        // Transport retries stay small: the job itself is retried by the queue.
        maxRetries: 1,
      });
  }

  async summarize(input: SummaryInput): Promise<string> {
    const lang = detectLanguage(input.text, input.language);
    const language = languageName(lang);
    const phrases = nonEmptyPhrases(input.requiredPhrases);
    const { min, max } = lengthBounds(input.desiredLength);
    const messages: ChatCompletionMessageParam[] = [
      {
        role: "system",
        content:
          `You are a careful editor who writes faithful summaries. Write in ${language}, the language of the ` +
          `input text, whatever language these instructions are in. Never add facts that are not in the text. ` +
          `Answer with a JSON object {"summary": string} only.`,
      },
      {
        role: "user",
        content: [
          `Summarise the text below.`,
          `Requirements:`,
          `1. Length: between ${min} and ${max} characters (aim for ${input.desiredLength}), counting every character including spaces, punctuation and line breaks. The text has ${charCount(input.text)} characters.`,
          `2. Include each of these required phrases verbatim, exactly as written (same characters, same case):`,
          ...phrases.map((p) => `   - ${JSON.stringify(p)}`),
          `3. Write the summary in ${language}.`,
          `4. End on a complete sentence with its final punctuation (never on a comma, a cut word or "…").`,
          ``,
          `Text:`,
          `<<<`,
          input.text,
          `>>>`,
        ].join("\n"),
      },
    ];
    return this.generate(
      messages,
      "summary",
      SUMMARY_SCHEMA,
      (json) => {
        const summary = typeof json.summary === "string" ? json.summary.trim() : null;
        if (summary === null) return { value: null, problems: ['The answer has no "summary" string.'] };
        return { value: summary, problems: checkSummary(summary, input).map(describeFailure) };
      },
      "Failed to generate the summary.",
    );
  }

  async titles(input: TitlesInput): Promise<TitlesOutput> {
    const lang = detectLanguage(input.text, input.language);
    const language = languageName(lang);
    const lines = textLines(input.text);
    const blocks = headingBlocks(lines.length, input.numHeadings);
    const size = blocks.length ? blocks[0].end - blocks[0].start : 0;
    const blockText = blocks.map((b, i) => `[Block ${i + 1}]\n${lines.slice(b.start, b.end).join("\n")}`).join("\n\n");
    const custom = input.customPrompt.trim();
    const messages: ChatCompletionMessageParam[] = [
      {
        role: "system",
        content:
          `You are an experienced magazine editor. Write in ${language}, the language of the input text, ` +
          `whatever language these instructions are in. Answer with a JSON object ` +
          `{"titles": string[], "headings": string[]} only.`,
      },
      {
        role: "user",
        content: [
          `Propose exactly ${input.numTitles} different article titles for the text below, and exactly ${input.numHeadings} sub-headings.`,
          `The text is split into consecutive blocks of ${size} lines; sub-heading i introduces block i.` +
            (blocks.length < input.numHeadings
              ? ` There are only ${blocks.length} blocks: the remaining sub-headings continue the article's structure.`
              : ""),
          `Titles and sub-headings must be non-empty, specific to the text, and written in ${language}.`,
          `Each title must differ from the others in its words, not only in their order.`,
          custom
            ? `The user's own request sets the angle, tone and form (follow it where it does not break the rules above), but it is not content: do not use any of its words that the text does not contain. Request: ${custom}`
            : "",
          ``,
          blockText,
        ]
          .filter((l) => l !== "")
          .join("\n"),
      },
    ];
    return this.generate(
      messages,
      "titles_and_headings",
      TITLES_SCHEMA,
      (json) => {
        const titles = Array.isArray(json.titles) ? json.titles.map((t) => String(t).trim()) : null;
        const headings = Array.isArray(json.headings) ? json.headings.map((h) => String(h).trim()) : null;
        if (!titles || !headings)
          return { value: null, problems: ['The answer needs "titles" and "headings" arrays.'] };
        const value = { titles, headings };
        return { value, problems: checkTitles(value, input).map(describeFailure) };
      },
      "Failed to generate titles and headings.",
    );
  }

  /** Asks, checks, and asks again with the problems named, up to maxAttempts answers. */
  private async generate<T>(
    messages: ChatCompletionMessageParam[],
    schemaName: string,
    schema: object,
    evaluate: (json: Record<string, unknown>) => { value: T | null; problems: string[] },
    failureMessage: string,
  ): Promise<T> {
    const attempts = Math.max(1, this.opts.maxAttempts);
    let problems: string[] = [];
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const content = await this.complete(messages, schemaName, schema);
      let json: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(content);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
      } catch {
        json = null;
      }
      const verdict = json ? evaluate(json) : { value: null, problems: ["The answer is not a JSON object."] };
      problems = verdict.problems;
      if (verdict.value !== null && problems.length === 0) return verdict.value;
      messages.push(
        { role: "assistant", content },
        {
          role: "user",
          content: [
            `Your answer does not meet the requirements:`,
            ...problems.map((p) => `- ${p}`),
            `Write a corrected answer that fixes every point above and keeps all the other requirements. Answer with the JSON object only.`,
          ].join("\n"),
        },
      );
    }
    throw new AppError("GENERATION_FAILED", failureMessage, { retryable: false, details: { attempts, problems } });
  }

  private async complete(messages: ChatCompletionMessageParam[], name: string, schema: object): Promise<string> {
    try {
      const res = await this.client.chat.completions.create({
        model: this.opts.model,
        messages,
        temperature: 0.3,
        response_format: {
          type: "json_schema",
          json_schema: { name, strict: true, schema: schema as Record<string, unknown> },
        },
      });
      const choice = res.choices[0];
      if (choice?.message?.refusal) {
        throw new AppError("GENERATION_FAILED", "The language model refused the request.", { retryable: false });
      }
      return choice?.message?.content ?? "";
    } catch (err) {
      if (err instanceof AppError) throw err;
      // Bad requests and credentials will not get better by retrying; rate limits, 5xx and network faults may.
      const status = err instanceof APIError ? err.status : undefined;
      throw new AppError("GENERATION_FAILED", "The language model could not be reached.", {
        retryable: isRetryableStatus(status),
        cause: err,
        details: { status },
      });
    }
  }
}
