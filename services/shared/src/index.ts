export * from "./auth.ts";
export * from "./dates.ts";
export * from "./errors.ts";
export * from "./jobs.ts";
export * from "./languages.ts";
export * from "./plans.ts";
export * from "./progress.ts";
