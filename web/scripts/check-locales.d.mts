// Types of check-locales.mjs, for the locale unit tests.
export type LocaleSet = "web" | "server";
export type LocaleMap = Map<string, unknown>;
export const LOCALE_DIRS: Record<LocaleSet, string>;
export function flatten(tree: unknown, prefix?: string, out?: LocaleMap): LocaleMap;
export function loadLocales(set: LocaleSet): Record<string, LocaleMap>;
export function placeholders(text: string): string[];
export function checkLocale(locales: Record<string, LocaleMap>, lang: string): string[];
export function differingShare(locales: Record<string, LocaleMap>, lang: string): number;
