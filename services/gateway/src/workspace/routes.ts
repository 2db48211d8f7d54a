// The workspace's routes: editing a job against its version, the kept versions and their restore, and
// the fidelity view. The rules are in the workspace use cases (usecases.ts).
import {
  fidelityReportSchema,
  patchTranscriptionSchema,
  renameSpeakersSchema,
  resolveSyncSchema,
  restoreVersionSchema,
  splitSegmentSchema,
  transcriptionSnapshotSchema,
  transcriptVersionListSchema,
  transcriptVersionSchema,
} from "@kikitori/shared";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import { toSnapshot } from "../jobs/snapshot.ts";
import type { ZodApp } from "../zod-app.ts";
import type { WorkspaceService } from "./usecases.ts";

export interface WorkspaceRoutesOptions {
  signer: TokenSigner;
  workspace: WorkspaceService;
}

const tags = ["transcription"];
const jobParams = z.object({ jobId: z.string().max(64) });
const versionParams = jobParams.extend({ version: z.coerce.number().int().min(1).max(1_000_000_000) });

/** Editing a job against its version, the kept versions and their restore, and the fidelity view. */
export const workspaceRoutes: FastifyPluginAsyncZod<WorkspaceRoutesOptions> = async (app, opts) => {
  const guard = requireAuth(opts.signer);
  textEditRoutes(app, opts, guard);
  versionRoutes(app, opts, guard);
  fidelityRoutes(app, opts, guard);
};

type Guard = ReturnType<typeof requireAuth>;

/** Edits of the texts: the PATCH, a line split, a sync conflict resolved, speakers renamed. */
function textEditRoutes(app: ZodApp, { workspace }: WorkspaceRoutesOptions, guard: Guard): void {
  app.patch(
    "/transcriptions/:jobId",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "Edit a job: its title, speaker names, segment texts or interview text, based on `version`; a job changed meanwhile answers 409 VERSION_CONFLICT",
        security: [{ bearer: [] }],
        params: jobParams,
        body: patchTranscriptionSchema,
        response: { 200: transcriptionSnapshotSchema, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (req) => {
      const job = await workspace.job(assertUid(req, undefined), req.params.jobId);
      const saved = await workspace.edit(job, req.body);
      req.log.info({ jobId: job.id, version: saved.version }, "transcription edited");
      return toSnapshot(saved);
    },
  );

  app.post(
    "/transcriptions/:jobId/segments/:index/split",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "Split a transcript line in two at a character offset (the time divided at the words); the second line may go to another speaker. The interview text follows.",
        security: [{ bearer: [] }],
        params: jobParams.extend({ index: z.coerce.number().int().min(0).max(1_000_000) }),
        body: splitSegmentSchema,
        response: { 200: transcriptionSnapshotSchema, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (req) => {
      const job = await workspace.job(assertUid(req, undefined), req.params.jobId);
      return toSnapshot(await workspace.split(job, req.params.index, req.body));
    },
  );

  app.post(
    "/transcriptions/:jobId/interview-sync",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "Resolve a turn changed in the transcript whose interview wording was edited by hand: keep the transcript's new wording or the interview's",
        security: [{ bearer: [] }],
        params: jobParams,
        body: resolveSyncSchema,
        response: { 200: transcriptionSnapshotSchema, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (req) => {
      const job = await workspace.job(assertUid(req, undefined), req.params.jobId);
      return toSnapshot(await workspace.resolve(job, req.body));
    },
  );

  app.patch(
    "/transcriptions/:jobId/speakers",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "Rename speakers (by id, as in the segments) and/or swap interviewer and interviewee; the interview text follows (an edit of the current version)",
        security: [{ bearer: [] }],
        params: jobParams,
        body: renameSpeakersSchema,
        response: { 200: transcriptionSnapshotSchema, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (req) => {
      const job = await workspace.job(assertUid(req, undefined), req.params.jobId);
      return toSnapshot(await workspace.edit(job, { version: job.version, speakers: req.body }));
    },
  );
}

/** The kept versions, one of them with its texts, and a restore. */
function versionRoutes(app: ZodApp, { workspace }: WorkspaceRoutesOptions, guard: Guard): void {
  app.get(
    "/transcriptions/:jobId/versions",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The kept versions of a job, newest first (the original AI output is always kept)",
        security: [{ bearer: [] }],
        params: jobParams,
        response: { 200: transcriptVersionListSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const job = await workspace.job(assertUid(req, undefined), req.params.jobId);
      return { version: job.version, versions: await workspace.versions(job) };
    },
  );

  app.get(
    "/transcriptions/:jobId/versions/:version",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "One kept version with its texts",
        security: [{ bearer: [] }],
        params: versionParams,
        response: { 200: transcriptVersionSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const job = await workspace.job(assertUid(req, undefined), req.params.jobId);
      return workspace.version(job, req.params.version);
    },
  );

  app.post(
    "/transcriptions/:jobId/versions/:version/restore",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "Bring a kept version back as the newest version; `version` in the body is the job version it was based on",
        security: [{ bearer: [] }],
        params: versionParams,
        body: restoreVersionSchema,
        response: { 200: transcriptionSnapshotSchema, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (req) => {
      const job = await workspace.job(assertUid(req, undefined), req.params.jobId);
      const saved = await workspace.restore(job, req.params.version, req.body.version);
      req.log.info({ jobId: job.id, restored: req.params.version, version: saved.version }, "version restored");
      return toSnapshot(saved);
    },
  );
}

/** The fidelity view of the interview text against the timed transcript. */
function fidelityRoutes(app: ZodApp, { workspace }: WorkspaceRoutesOptions, guard: Guard): void {
  app.get(
    "/transcriptions/:jobId/fidelity",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "The fidelity view: each interview sentence aligned to the stretch of the timed transcript it comes from (time, speaker heard, support); sentences no stretch supports (invented), under another speaker's label than the voice heard (misattributed), with words changed (reworded); passages the interview left out (dropped); the share of sentences supported; and a word diff of the two texts",
        security: [{ bearer: [] }],
        params: jobParams,
        response: { 200: fidelityReportSchema, ...errorResponses(401, 404, 409) },
      },
    },
    async (req) => {
      const job = await workspace.job(assertUid(req, undefined), req.params.jobId);
      return workspace.fidelity(job);
    },
  );
}
