/** How the kept versions of a job are shown. Pure. */
import type { TranscriptVersionSummary } from "@kikitori/shared";

/** The number each kept version is shown with: 1 for the oldest, counting up without gaps. */
export function versionOrdinals(versions: readonly Pick<TranscriptVersionSummary, "version">[]): Map<number, number> {
  const ascending = [...versions].map((v) => v.version).sort((a, b) => a - b);
  return new Map(ascending.map((v, i) => [v, i + 1]));
}

/** The time shown for a version: when the original was made, when an edit was last saved. */
export function versionTime(v: Pick<TranscriptVersionSummary, "kind" | "createdAt" | "updatedAt">): string {
  return v.kind === "original" ? v.createdAt : v.updatedAt;
}
