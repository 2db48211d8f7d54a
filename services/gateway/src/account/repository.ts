// The account's records in Postgres: the user row, the payments the billing service wrote, and the
// rows an export lists (jobs, text runs, usage events, share links). Jobs and text runs are only
// read here; their writes belong to the lifecycle modules in services/shared/src/server.
import { glossaryOf } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import type { AccountRepository } from "./usecases.ts";

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === "P2002";

export function accountRepository(db: Db): AccountRepository {
  const revokeTokens = (uid: string, now: Date) =>
    db.refreshToken.updateMany({ where: { userId: uid, revokedAt: null }, data: { revokedAt: now } });
  return {
    user: (uid) => db.user.findUnique({ where: { id: uid } }),
    languageOfEmail: (email) => db.user.findUnique({ where: { email }, select: { language: true } }),
    async setPassword(uid, passwordHash, now) {
      await db.$transaction([db.user.update({ where: { id: uid }, data: { passwordHash } }), revokeTokens(uid, now)]);
    },
    async changeEmail(uid, email, now) {
      try {
        await db.$transaction([
          db.user.update({ where: { id: uid }, data: { email, emailVerified: true } }),
          revokeTokens(uid, now),
        ]);
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
    payments: (uid) =>
      db.payment.findMany({
        where: { userId: uid, status: { in: ["succeeded", "failed", "refunded"] } },
        orderBy: { createdAt: "desc" },
        take: 100,
      }),
    async exportRecords(uid) {
      const [jobs, textRuns, usageEvents, shares] = await Promise.all([
        db.transcriptionJob.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } }),
        db.textRun.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } }),
        db.usageEvent.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } }),
        // Share links without their token hash (the token itself is never kept).
        db.transcriptShare.findMany({
          where: { userId: uid },
          orderBy: { createdAt: "asc" },
          omit: { tokenHash: true, userId: true },
        }),
      ]);
      return {
        transcriptions: jobs.map((j) => ({
          jobId: j.id,
          createdAt: j.createdAt.toISOString(),
          status: j.status,
          originalName: j.originalName,
          fileType: j.model,
          durationSeconds: j.durationSeconds,
          interviewer: j.interviewer,
          interviewee: j.interviewee,
          tone: j.tone,
          interviewExample: j.interviewExample,
          audioLanguage: j.audioLanguage,
          detectedLanguage: j.detectedLanguage,
          glossary: glossaryOf(j.glossary),
          transcription: j.transcription,
          rewrittenText: j.rewrittenText,
        })),
        textRuns: textRuns.map((r) => ({
          id: r.id,
          kind: r.kind,
          createdAt: r.createdAt.toISOString(),
          status: r.status,
          inputChars: r.inputChars,
          result: r.result,
        })),
        usageEvents,
        shareLinks: shares.map((l) => ({
          id: l.id,
          jobId: l.jobId,
          includeAudio: l.includeAudio,
          createdAt: l.createdAt.toISOString(),
          expiresAt: l.expiresAt.toISOString(),
          revokedAt: l.revokedAt?.toISOString() ?? null,
          lastOpenedAt: l.lastOpenedAt?.toISOString() ?? null,
        })),
      };
    },
  };
}
