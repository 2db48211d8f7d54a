/** The workspace calls: the library's search, editing against a version, versions, restore, fidelity, delete. */
import {
  type FidelityReport,
  fidelityReportSchema,
  type LibrarySort,
  libraryListSchema,
  type PatchTranscriptionInput,
  type TranscriptionSnapshot,
  transcriptionSnapshotSchema,
  transcriptVersionListSchema,
  transcriptVersionSchema,
} from "@kikitori/shared";
import type { z } from "zod";
import { apiFetch, apiFetchParsed, bySchema } from "../api/client.ts";

const job = (jobId: string) => `/api/transcriptions/${encodeURIComponent(jobId)}`;
const SNAPSHOT = bySchema(transcriptionSnapshotSchema);

export type LibraryPage = z.infer<typeof libraryListSchema>;

/** GET /api/transcriptions?view=library&q=&sort=&page=&limit=: light items with the passage each match is in. */
export async function listLibrary(
  query: { q: string; sort: LibrarySort | ""; page: number; limit: number },
  signal?: AbortSignal,
): Promise<LibraryPage> {
  const params = new URLSearchParams({ view: "library", page: String(query.page), limit: String(query.limit) });
  if (query.q.trim()) params.set("q", query.q.trim());
  if (query.sort) params.set("sort", query.sort);
  return apiFetchParsed(`/api/transcriptions?${params}`, bySchema(libraryListSchema), "Unexpected library", {
    signal,
  });
}

/** PATCH /api/transcriptions/{jobId}: an edit based on `body.version` → the new snapshot (409 when stale). */
export async function patchTranscription(jobId: string, body: PatchTranscriptionInput): Promise<TranscriptionSnapshot> {
  return apiFetchParsed(job(jobId), SNAPSHOT, "Unexpected transcription snapshot", { method: "PATCH", body });
}

/** DELETE /api/transcriptions/{jobId}: the job, its audio and its texts are gone. */
export async function deleteTranscription(jobId: string): Promise<void> {
  await apiFetch(job(jobId), { method: "DELETE" });
}

export async function listVersions(jobId: string, signal?: AbortSignal) {
  return apiFetchParsed(`${job(jobId)}/versions`, bySchema(transcriptVersionListSchema), "Unexpected versions", {
    signal,
  });
}

export async function getVersion(jobId: string, version: number, signal?: AbortSignal) {
  return apiFetchParsed(`${job(jobId)}/versions/${version}`, bySchema(transcriptVersionSchema), "Unexpected version", {
    signal,
  });
}

/** POST …/versions/{version}/restore, based on the job's `current` version → the new snapshot. */
export async function restoreVersion(jobId: string, version: number, current: number): Promise<TranscriptionSnapshot> {
  return apiFetchParsed(`${job(jobId)}/versions/${version}/restore`, SNAPSHOT, "Unexpected transcription snapshot", {
    method: "POST",
    body: { version: current },
  });
}

export async function getFidelity(jobId: string, signal?: AbortSignal): Promise<FidelityReport> {
  return apiFetchParsed(`${job(jobId)}/fidelity`, bySchema(fidelityReportSchema), "Unexpected fidelity report", {
    signal,
  });
}

/** POST /api/transcriptions/{jobId}/segments/{index}/split: a line split at a character offset → the new snapshot. */
export async function splitLine(
  jobId: string,
  index: number,
  body: { version: number; at: number; speaker?: number },
): Promise<TranscriptionSnapshot> {
  return apiFetchParsed(`${job(jobId)}/segments/${index}/split`, SNAPSHOT, "Unexpected transcription snapshot", {
    method: "POST",
    body,
  });
}

/** POST /api/transcriptions/{jobId}/interview-sync: a changed turn resolved (the transcript's wording or the user's). */
export async function resolveSyncConflict(
  jobId: string,
  body: { version: number; conflict: string; keep: "transcript" | "interview" },
): Promise<TranscriptionSnapshot> {
  return apiFetchParsed(`${job(jobId)}/interview-sync`, SNAPSHOT, "Unexpected transcription snapshot", {
    method: "POST",
    body,
  });
}
