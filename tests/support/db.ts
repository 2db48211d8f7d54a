import { randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { addMonthsAnchored, type PlanName } from "@kikitori/shared";
import { createDb, type Db } from "../../services/shared/src/server/db.ts";
import { dropDatabase, ensureDatabase, migrate } from "../../services/shared/src/server/migrate.ts";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../prisma/migrations");

/** A fresh, migrated database per test file; `drop()` removes it. */
export async function createTestDatabase(): Promise<{ url: string; db: Db; drop: () => Promise<void> }> {
  const base = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  base.pathname = `/kikitori_t_${randomBytes(5).toString("hex")}`;
  const url = base.toString();
  await ensureDatabase(url);
  await migrate(url, MIGRATIONS);
  const db = createDb(url, { max: 5 });
  return {
    url,
    db,
    drop: async () => {
      await db.$disconnect();
      await dropDatabase(url);
    },
  };
}

/** A unique Redis key prefix (so BullMQ queues and pub/sub channels are private to one test). */
export function uniquePrefix(name = "t"): string {
  return `kt-${name}-${randomBytes(4).toString("hex")}`;
}

/** Inserts a verified user whose period starts now (or at `periodStart`); returns its id and e-mail. */
export async function insertVerifiedUser(
  db: Db,
  opts: { plan?: PlanName; language?: string; periodStart?: Date; secondsUsed?: number } = {},
): Promise<{ uid: string; email: string }> {
  const uid = randomUUID();
  const email = `${uid}@example.com`;
  const start = opts.periodStart ?? new Date();
  await db.user.create({
    data: {
      id: uid,
      email,
      passwordHash: "x",
      emailVerified: true,
      plan: opts.plan ?? "free",
      language: opts.language ?? "en",
      secondsUsed: opts.secondsUsed ?? 0,
      periodStart: start,
      resetDate: addMonthsAnchored(start, 1),
      anchorDay: start.getUTCDate(),
    },
  });
  return { uid, email };
}

/** A transcription job row of `userId` (a 1-s MP3 by default), as a test needs it; returns its id. */
export async function insertJob(db: Db, userId: string, over: Record<string, unknown> = {}): Promise<string> {
  const id = typeof over.id === "string" ? over.id : randomUUID();
  await db.transcriptionJob.create({
    data: {
      id,
      userId,
      correlationId: "c",
      audioKey: `users/${userId}/audio/${id}.mp3`,
      audioMime: "audio/mpeg",
      audioFormat: "mp3",
      audioBytes: 100,
      durationSeconds: 1,
      originalName: "a.mp3",
      model: "general",
      language: "en",
      audioExpiresAt: new Date(Date.now() + 86_400_000),
      ...over,
    },
  });
  return id;
}

/**
 * A signed-in user with a finished two-voice interview ("Interview mit Anna.mp3": Anna asks, Dr.
 * Tanaka answers, four timed lines), for the export and quote tests; `over` changes any column.
 */
export async function userWithInterview(
  t: {
    db: Db;
    gw: { signer: { sign: (c: { sub: string; email: string; email_verified: boolean }) => Promise<string> } };
  },
  over: Record<string, unknown> = {},
): Promise<{ uid: string; token: string; jobId: string }> {
  const { uid, email } = await insertVerifiedUser(t.db);
  const token = await t.gw.signer.sign({ sub: uid, email, email_verified: true });
  const jobId = await insertJob(t.db, uid, {
    durationSeconds: 12,
    originalName: "Interview mit Anna.mp3",
    audioLanguage: "en",
    status: "completed",
    transcription: "So how did it start? It started in a garage. Really? Yes.",
    segments: [
      { start: 0.5, end: 2, text: "So how did it start?", speaker: 0 },
      { start: 2.5, end: 6, text: "It started in a garage.", speaker: 1 },
      { start: 6.2, end: 7, text: "Really?", speaker: 0 },
      { start: 7.5, end: 8.25, text: "Yes.", speaker: 1 },
    ],
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Dr. Tanaka", role: "interviewee" },
    ],
    rewrittenText:
      "Anna: So how did it start?\n\nDr. Tanaka: It started in a garage.\n\nAnna: Really?\n\nDr. Tanaka: Yes.",
    ...over,
  });
  return { uid, token, jobId };
}
