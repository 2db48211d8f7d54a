import { readFileSync } from "node:fs";
import { z } from "zod";
import { PLAN_CATALOGUE, type PlanCatalogue, type PlanName, type PlanQuota, planSettingKey } from "../plans.ts";

/**
 * Config is read from the environment once, at boot, through a zod schema; a bad or missing value
 * stops the process with one clear message naming every offending variable.
 */
export class ConfigError extends Error {
  constructor(service: string, issues: string[]) {
    super(`${service}: invalid configuration\n${issues.map((i) => `  - ${i}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function parseConfig<S extends z.ZodType>(
  service: string,
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const files = resolveSecretFiles(env);
  const result = schema.safeParse(files.env);
  const issues = [
    ...files.issues,
    ...(result.success ? [] : result.error.issues.map((i) => `${i.path.join(".") || "(env)"}: ${i.message}`)),
  ];
  // A placeholder the schema already refused (JWT_SECRET) is named once.
  for (const p of placeholderIssues(files.env)) {
    if (!issues.some((i) => i.startsWith(`${p.slice(0, p.indexOf(":"))}:`))) issues.push(p);
  }
  if (issues.length || !result.success) throw new ConfigError(service, issues);
  return result.data;
}

/**
 * Variables that carry credentials. Each may instead be given as `<NAME>_FILE`, a path whose trimmed
 * contents become the value (Docker/compose secrets, Kubernetes Secret volumes); a value set
 * directly wins. They are also the variables checked for placeholder values.
 */
export const SECRET_VARIABLES = [
  "DATABASE_URL",
  "REDIS_URL",
  "S3_ACCESS_KEY",
  "S3_SECRET_KEY",
  "JWT_SECRET",
  "INTERNAL_TOKEN",
  "SMTP_URL",
  "OPENAI_API_KEY",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
] as const;

/** The `<NAME>_FILE` twins of SECRET_VARIABLES, for a service's schema (so that they count as known). */
export function secretFileEnv<K extends (typeof SECRET_VARIABLES)[number]>(
  ...names: K[]
): Record<`${K}_FILE`, z.ZodOptional<z.ZodString>> {
  return Object.fromEntries(names.map((n) => [`${n}_FILE`, z.string().optional()])) as Record<
    `${K}_FILE`,
    z.ZodOptional<z.ZodString>
  >;
}

/** Replaces every unset secret variable whose `_FILE` twin is set by that file's trimmed contents. */
export function resolveSecretFiles(env: Record<string, string | undefined>): {
  env: Record<string, string | undefined>;
  issues: string[];
} {
  const out = { ...env };
  const issues: string[] = [];
  for (const name of SECRET_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (env[name] || !file) continue;
    try {
      out[name] = readFileSync(file, "utf8").trim();
    } catch (err) {
      issues.push(`${name}_FILE: cannot read: ${(err as Error).message}`);
    }
  }
  return { env: out, issues };
}

/**
 * The placeholder values shipped in templates (k8s/overlays/dev/secret.yaml, docs): "CHANGE-ME" in
 * any spelling. A deployment that forgot to replace one must not start with a publicly known key.
 */
export const PLACEHOLDER_PATTERN = /change[-_ ]?me/i;

export function isPlaceholderSecret(value: string | undefined): boolean {
  return Boolean(value && PLACEHOLDER_PATTERN.test(value));
}

/** One issue per secret variable that still holds a template placeholder. */
export function placeholderIssues(env: Record<string, string | undefined>): string[] {
  return SECRET_VARIABLES.filter((name) => isPlaceholderSecret(env[name])).map(
    (name) => `${name}: still the template placeholder (contains "CHANGE-ME"); set a real value`,
  );
}

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");
export const envBool = (def: boolean) => bool.default(def);
export const envInt = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);
export const envUrl = (def: string) => z.url().default(def);
/** An optional URL; an empty value counts as unset. */
export const envOptionalUrl = z
  .string()
  .optional()
  .transform((v) => (v ? v : undefined))
  .pipe(z.url().optional());

/** Variables every service shares. */
export const commonEnv = {
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  APP_NAME: z.string().min(1).default("Kikitori"),
  PUBLIC_URL: envUrl("http://localhost:3000"),
  DATABASE_URL: envUrl("postgresql://postgres@127.0.0.1:5432/kikitori"),
  REDIS_URL: envUrl("redis://127.0.0.1:6379"),
  /** Prefix of every BullMQ key and pub/sub channel; lets several stacks (or tests) share one Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9:_-]+$/)
    .default("kikitori"),
  S3_ENDPOINT: envUrl("http://127.0.0.1:9000"),
  S3_ACCESS_KEY: z.string().min(1).default("S3RVER"),
  S3_SECRET_KEY: z.string().min(1).default("S3RVER"),
  S3_BUCKET: z.string().min(3).default("kikitori"),
  S3_REGION: z.string().default("us-east-1"),
  ...secretFileEnv("DATABASE_URL", "REDIS_URL", "S3_ACCESS_KEY", "S3_SECRET_KEY"),
  ...planEnv(),
};

/**
 * JWT_SECRET, else the trimmed contents of JWT_SECRET_FILE; `error` says why the file could not be
 * read, or that the secret is a template placeholder (a publicly known signing key is refused).
 */
export function readJwtSecret(c: { JWT_SECRET?: string; JWT_SECRET_FILE?: string }): {
  secret?: string;
  error?: string;
} {
  let secret = c.JWT_SECRET;
  if (!secret && c.JWT_SECRET_FILE) {
    try {
      secret = readFileSync(c.JWT_SECRET_FILE, "utf8").trim();
    } catch (err) {
      return { error: `cannot read: ${(err as Error).message}` };
    }
  }
  if (isPlaceholderSecret(secret)) {
    return { error: 'still the template placeholder (contains "CHANGE-ME"); set a real secret' };
  }
  return { secret };
}

/** E-mail (gateway: account mails; billing: plan-change mails). */
export const mailEnv = {
  /** SMTP server for e-mail; when unset, mails are written to MAIL_DIR as .eml files. */
  SMTP_URL: envOptionalUrl,
  SMTP_URL_FILE: z.string().optional(),
  MAIL_FROM: z.string().default("Kikitori <no-reply@kikitori.local>"),
  MAIL_DIR: z.string().default("var/mail"),
};

/** The setting names of a plan's quotas, PLAN_<PLAN>_{MINUTES,SUMMARIES,TITLE_RUNS}. */
function quotaSettings(plan: string): Record<keyof PlanQuota, string> {
  const P = planSettingKey(plan);
  return { maxMinutes: `PLAN_${P}_MINUTES`, maxSummaries: `PLAN_${P}_SUMMARIES`, maxTitleRuns: `PLAN_${P}_TITLE_RUNS` };
}

/** The quota variables of every plan of the catalogue, with the catalogue's defaults. */
export function planEnv(plans: PlanCatalogue = PLAN_CATALOGUE) {
  const shape: Record<string, z.ZodType> = {};
  for (const plan of plans.names) {
    const q = plans.entry(plan).quotas;
    const names = quotaSettings(plan);
    shape[names.maxMinutes] = envInt(q.maxMinutes, 0);
    shape[names.maxSummaries] = envInt(q.maxSummaries, 0);
    shape[names.maxTitleRuns] = envInt(q.maxTitleRuns, 0);
  }
  return shape as Record<string, z.ZodDefault<z.ZodCoercedNumber>>;
}

export type CommonConfig = {
  NODE_ENV: "development" | "production" | "test";
  LOG_LEVEL: string;
  APP_NAME: string;
  PUBLIC_URL: string;
  DATABASE_URL: string;
  REDIS_URL: string;
  REDIS_PREFIX: string;
  S3_ENDPOINT: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  S3_BUCKET: string;
  S3_REGION: string;
} & Record<string, unknown>;

/** Every plan's quotas from a parsed config (planEnv's variables), over the catalogue's defaults. */
export function quotasFromConfig<N extends string = PlanName>(
  cfg: Record<string, unknown>,
  plans: PlanCatalogue<N> = PLAN_CATALOGUE as PlanCatalogue as PlanCatalogue<N>,
): Record<N, PlanQuota> {
  const out = {} as Record<N, PlanQuota>;
  for (const plan of plans.names) {
    const names = quotaSettings(plan);
    const q = plans.entry(plan).quotas;
    out[plan] = {
      maxMinutes: Number(cfg[names.maxMinutes] ?? q.maxMinutes),
      maxSummaries: Number(cfg[names.maxSummaries] ?? q.maxSummaries),
      maxTitleRuns: Number(cfg[names.maxTitleRuns] ?? q.maxTitleRuns),
    };
  }
  return out;
}
