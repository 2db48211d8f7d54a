/**
 * Server-side texts in the 24 interface languages: e-mails, plan names and the default speaker
 * labels of corrected transcripts. One JSON file per language in ./locales with the same keys as
 * en.json (checked by web/src/locales/locales.unit.test.ts); English fills any gap.
 * Numbers, prices, dates and durations are formatted by Intl for the language, never by the texts.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_LANGUAGE, type Language, normalizeLanguage } from "../../languages.ts";
import type { PlanName } from "../../plans.ts";

export type MailKind =
  | "verify"
  | "reset"
  | "planUpgraded"
  | "planScheduled"
  | "planCancelled"
  | "planRenewed"
  | "planSwitched"
  | "renewalFailed"
  | "emailChange"
  | "accountDeleted"
  /** To the owner of an address someone tried to register with (registration answers alike). */
  | "registerAttempt"
  /** To the owner of an address another account tried to change its e-mail to. */
  | "emailChangeAttempt";

export interface MailText {
  subject: string;
  greeting: string;
  body: string;
  button: string;
  note: string;
}

export interface ServerTexts {
  speakers: { interviewer: string; interviewee: string; other: string };
  plans: Record<PlanName, string>;
  mail: { footer: string } & Record<MailKind, MailText>;
}

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "locales");
const TEXTS = new Map<string, ServerTexts>(
  readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(path.join(dir, f), "utf8")) as ServerTexts]),
);

/** The texts of a language (any tag: "ja-JP" → ja), English when it has none. */
export function serverTexts(language: string | null | undefined): ServerTexts {
  return TEXTS.get(normalizeLanguage(language)) ?? (TEXTS.get(DEFAULT_LANGUAGE) as ServerTexts);
}

export function speakerLabels(language: string | null | undefined): ServerTexts["speakers"] {
  return serverTexts(language).speakers;
}

/** Replaces {{name}} placeholders; unknown names stay visible rather than vanish. */
export function fill(text: string, vars: Record<string, string | number>): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, k: string) => (k in vars ? String(vars[k]) : whole));
}

/** "24 hours", "24 Stunden", "24 часа", "24時間": Intl chooses the plural form. */
export function formatDuration(language: Language, value: number, unit: "hour" | "minute" | "day"): string {
  return new Intl.NumberFormat(language, { style: "unit", unit, unitDisplay: "long" }).format(value);
}

/** A price in the language's format ("$15.00", "¥1,980", "15,00 $"). */
export function formatMoney(language: Language, amountMajor: number, currency: string): string {
  return new Intl.NumberFormat(language, { style: "currency", currency }).format(amountMajor);
}

/** A calendar date in the language's long format, in UTC (billing dates are UTC days). */
export function formatLongDate(language: Language, date: Date): string {
  return new Intl.DateTimeFormat(language, { dateStyle: "long", timeZone: "UTC" }).format(date);
}
