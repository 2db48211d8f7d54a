// Gateway use cases built with in-memory repositories, for fast unit tests of their rules (in the
// spirit of immich's newTestService): each `newTest…` returns the use case, its repositories (their
// state is plain maps and counters a test can read and set) and the other ports it was given.
import { AppError, DEFAULT_QUOTAS, type Language, type TextJob } from "@kikitori/shared";
import type { JobRow, Logger, MailMessage, UsageRow, VersionRow } from "@kikitori/shared/server";
import type { AccountRepository, AccountUser, PaymentRecord } from "../../services/gateway/src/account/usecases.ts";
import { AccountService } from "../../services/gateway/src/account/usecases.ts";
import { TokenSigner } from "../../services/gateway/src/auth/tokens.ts";
import { type AuthRepository, AuthService, type NewEmailToken } from "../../services/gateway/src/auth/usecases.ts";
import {
  type BillingCall,
  type BillingCaller,
  type BillingResponse,
  BillingService,
} from "../../services/gateway/src/billing/usecases.ts";
import { type JobChunk, type JobRepository, JobService } from "../../services/gateway/src/jobs/usecases.ts";
import {
  type QueuedTextJob,
  TextJobTimeout,
  type TextKind,
  type TextRunPorts,
  type TextRunRepository,
  TextRunService,
} from "../../services/gateway/src/text/usecases.ts";
import { type WorkspaceRepository, WorkspaceService } from "../../services/gateway/src/workspace/usecases.ts";

/** A text_runs row as the in-memory repository keeps it. */
export interface MemoryTextRun {
  userId: string;
  kind: TextKind;
  status: string;
  result: unknown;
  errorCode: string | null;
  durationMs?: number;
}

/**
 * The month's run counts and the text_runs rows in memory, with Postgres's rules: a reservation
 * within `limit` per user and kind, `fail` only from running (and giving the count back then).
 * `failCreate` makes the next creates throw as a database outage would.
 */
export function memoryTextRunRepository(limit = 5) {
  const used = new Map<string, number>();
  const runs = new Map<string, MemoryTextRun>();
  const key = (userId: string, kind: TextKind) => `${userId}:${kind}`;
  const release = (userId: string, kind: TextKind) =>
    used.set(key(userId, kind), Math.max(0, (used.get(key(userId, kind)) ?? 0) - 1));
  const state = {
    used,
    runs,
    failCreate: false,
    /** Runs counted this month for the user and kind. */
    usedOf: (userId: string, kind: TextKind) => used.get(key(userId, kind)) ?? 0,
    /** The worker's side: stores a result while the run is running (false when it was not). */
    succeed(runId: string, result: unknown): boolean {
      const run = runs.get(runId);
      if (run?.status !== "running") return false;
      runs.set(runId, { ...run, status: "succeeded", result });
      return true;
    },
  };
  const repo: TextRunRepository = {
    reserve: async (userId, kind) => {
      if (state.usedOf(userId, kind) >= limit) return false;
      used.set(key(userId, kind), state.usedOf(userId, kind) + 1);
      return true;
    },
    release: async (userId, kind) => {
      release(userId, kind);
    },
    create: async (run) => {
      if (state.failCreate) throw new Error("db down");
      runs.set(run.id, { userId: run.userId, kind: run.kind, status: "running", result: null, errorCode: null });
    },
    fail: async (runId, status, errorCode, durationMs) => {
      const run = runs.get(runId);
      if (run?.status !== "running") return false;
      runs.set(runId, { ...run, status, errorCode, durationMs });
      release(run.userId, run.kind);
      return true;
    },
    find: async (runId) => runs.get(runId) ?? null,
  };
  return { repo, state };
}

/** What the in-memory worker does with the next queued text job. */
export type TextJobOutcome =
  | { result: unknown }
  | { error: Error; code: string }
  | { timeout: true; thenResult?: unknown };

/**
 * The text-run use case on an in-memory repository, object store and queue. The queue's worker ends
 * each job as `queue.outcome` says: a stored result, a failure it records itself (as the text-worker
 * does when a job fails for good), or no answer within the wait (optionally a result stored meanwhile).
 */
export function newTestTextRunService(over: { limit?: number; runId?: string; timeoutMs?: number } = {}) {
  const { repo, state: runs } = memoryTextRunRepository(over.limit);
  const queue = {
    outcome: { result: { summary: "short" } } as TextJobOutcome,
    inputs: new Map<string, string>(),
    queued: [] as TextJob[],
    removed: [] as string[],
    failSave: false,
    failEnqueue: false,
  };
  const settle = async (job: TextJob): Promise<unknown> => {
    const o = queue.outcome;
    if ("result" in o) {
      runs.succeed(job.runId, o.result);
      return o.result;
    }
    if ("error" in o) {
      await repo.fail(job.runId, "failed", o.code);
      throw o.error;
    }
    if (o.thenResult) runs.succeed(job.runId, o.thenResult);
    throw new TextJobTimeout("Job wait timed out before finishing");
  };
  const ports: TextRunPorts = {
    saveInput: async (key, body) => {
      if (queue.failSave) throw new Error("s3 down");
      queue.inputs.set(key, body.toString("utf8"));
    },
    enqueue: async (job): Promise<QueuedTextJob> => {
      if (queue.failEnqueue) throw new Error("redis down");
      queue.queued.push(job);
      return {
        result: () => settle(job),
        remove: async () => {
          queue.removed.push(job.runId);
        },
      };
    },
    planLink: (language) => `https://kikitori.test/${language ?? "en"}/plan`,
    contactUrl: "https://kikitori.test/contact",
    timeoutMs: over.timeoutMs ?? 4000,
    newId: () => over.runId ?? crypto.randomUUID(),
  };
  return { service: new TextRunService(repo, ports), runs, queue, ports };
}

/**
 * The billing service's API in memory: every call is recorded, and `answer` (a JSON body and status,
 * a PDF, raw text, or `unreachable`) is what the next calls get back.
 */
export function memoryBillingRepository() {
  const state = {
    calls: [] as BillingCall[],
    answer: { status: 200, json: {} } as
      | { status: number; json: unknown }
      | { status: number; pdf: Buffer; disposition?: string }
      | { status: number; text: string }
      | "unreachable",
  };
  const repo = {
    async send(call: BillingCall): Promise<BillingResponse> {
      state.calls.push(call);
      const a = state.answer;
      if (a === "unreachable") throw new TypeError("fetch failed");
      if ("pdf" in a) {
        return { status: a.status, contentType: "application/pdf", bytes: a.pdf, disposition: a.disposition ?? null };
      }
      const text = "json" in a ? JSON.stringify(a.json) : a.text;
      return { status: a.status, contentType: "application/json", text, disposition: null };
    },
  };
  return { repo, state };
}

/** The billing use cases on the in-memory billing API, with a caller whose log lines are kept. */
export function newTestBillingService(uid: string | null = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22") {
  const { repo, state: billing } = memoryBillingRepository();
  const logged: Array<{ level: "error" | "warn"; msg: string }> = [];
  const caller: BillingCaller = {
    uid,
    requestId: "req-1",
    log: {
      error: (_obj: unknown, msg?: string) => void logged.push({ level: "error", msg: msg ?? "" }),
      warn: (_obj: unknown, msg?: string) => void logged.push({ level: "warn", msg: msg ?? "" }),
    } as BillingCaller["log"],
  };
  return { service: new BillingService(repo), billing, caller, logged };
}

/** Who a fake logger or mailer was told what, for the auth and account use cases. */
function recorders() {
  const mails: MailMessage[] = [];
  const logged: string[] = [];
  /** `down`: sending fails as with an unreachable SMTP server. */
  const smtp = { down: false };
  const log = (_obj: unknown, msg?: string) => void logged.push(msg ?? "");
  return {
    mails,
    logged,
    smtp,
    mailer: {
      send: async (m: MailMessage) => {
        if (smtp.down) throw new Error("smtp down");
        mails.push(m);
      },
      close: async () => undefined,
    },
    logger: { info: log, warn: log, error: log, debug: log, child: () => ({}) } as unknown as Logger,
  };
}

/** A user row of the in-memory sign-in and account records. */
export interface MemoryUser extends AccountUser {
  backendRecordedAt: Date | null;
  anchorDay: number;
}

/**
 * The users, e-mail tokens, refresh tokens and usage events in memory, with Postgres's constraints
 * that the use cases rely on: one account per address, single-use tokens, guarded rotation.
 * `transaction` runs its function on the same maps (a failure inside it does not roll back).
 */
export function memoryAuthRepository() {
  const state = {
    users: new Map<string, MemoryUser>(),
    emailTokens: new Map<string, NewEmailToken & { usedAt: Date | null }>(),
    refreshTokens: new Map<
      string,
      { id: string; userId: string; familyId: string; expiresAt: Date; revokedAt: Date | null; rotatedAt: Date | null }
    >(),
    usageEvents: [] as Array<{ userId: string }>,
    audioDeletedOf: [] as string[],
  };
  const byEmail = (email: string) => [...state.users.values()].find((u) => u.email === email) ?? null;
  const tokensOf = (pred: (t: { userId: string; familyId: string }) => boolean, now: Date) => {
    for (const t of state.refreshTokens.values()) if (pred(t) && !t.revokedAt) t.revokedAt = now;
  };
  const repo: AuthRepository = {
    transaction: (fn) => fn(repo),
    async createUser(user, verifyToken) {
      if (byEmail(user.email)) return false;
      await repo.insertUser(user);
      await repo.createEmailToken(verifyToken);
      return true;
    },
    async insertUser(u) {
      state.users.set(u.id, {
        id: u.id,
        email: u.email,
        emailVerified: false,
        passwordHash: u.passwordHash,
        language: u.language,
        plan: "free",
        pendingPlan: null,
        resetDate: u.resetDate,
        createdAt: u.registeredAt,
        periodStart: u.registeredAt,
        glossary: [],
        secondsUsed: 0,
        summariesUsed: 0,
        titleRunsUsed: 0,
        backendRecordedAt: u.registeredAt,
        anchorDay: u.anchorDay,
      });
    },
    async deleteUnverifiedUser(uid) {
      if (state.users.get(uid)?.emailVerified === false) state.users.delete(uid);
    },
    userByEmail: async (email) => byEmail(email),
    userById: async (uid) => state.users.get(uid) ?? null,
    async createEmailToken(t) {
      state.emailTokens.set(t.tokenHash, { ...t, usedAt: null });
    },
    emailToken: async (tokenHash) => state.emailTokens.get(tokenHash) ?? null,
    async useEmailToken(id, now) {
      const t = [...state.emailTokens.values()].find((e) => e.id === id);
      if (!t || t.usedAt) return false;
      t.usedAt = now;
      return true;
    },
    async useEmailTokensOf(userId, kind, now) {
      for (const t of state.emailTokens.values()) if (t.userId === userId && t.kind === kind) t.usedAt ??= now;
    },
    async markEmailVerified(uid) {
      const u = state.users.get(uid);
      if (u) u.emailVerified = true;
    },
    async setPasswordVerified(uid, passwordHash) {
      const u = state.users.get(uid);
      if (u) Object.assign(u, { passwordHash, emailVerified: true });
    },
    async createRefreshToken(t) {
      state.refreshTokens.set(t.tokenHash, { ...t, revokedAt: null, rotatedAt: null });
    },
    async refreshToken(tokenHash) {
      const t = state.refreshTokens.get(tokenHash);
      const u = t && state.users.get(t.userId);
      return t && u ? { ...t, user: { id: u.id, email: u.email, emailVerified: u.emailVerified } } : null;
    },
    async rotateRefreshToken(id, now) {
      const t = [...state.refreshTokens.values()].find((r) => r.id === id);
      if (!t || t.rotatedAt || t.revokedAt) return false;
      t.rotatedAt = now;
      return true;
    },
    revokeFamily: async (familyId, now) => tokensOf((t) => t.familyId === familyId, now),
    revokeUserTokens: async (userId, now) => tokensOf((t) => t.userId === userId, now),
    async markBackendRecorded(uid, now) {
      const u = state.users.get(uid);
      if (u) u.backendRecordedAt = now;
    },
    async markAudioDeleted(uid) {
      state.audioDeletedOf.push(uid);
    },
    async forgetBackendUser(uid) {
      await repo.deleteUsageEvents(uid);
      await repo.clearBackendRecord(uid);
    },
    async deleteUsageEvents(uid) {
      state.usageEvents = state.usageEvents.filter((e) => e.userId !== uid);
    },
    async clearBackendRecord(uid) {
      const u = state.users.get(uid);
      if (u) u.backendRecordedAt = null;
    },
    async deleteUser(uid) {
      state.users.delete(uid);
      for (const [k, t] of state.refreshTokens) if (t.userId === uid) state.refreshTokens.delete(k);
      for (const [k, t] of state.emailTokens) if (t.userId === uid) state.emailTokens.delete(k);
      state.usageEvents = state.usageEvents.filter((e) => e.userId !== uid);
    },
  };
  return { repo, state };
}

/** The account's records on the same in-memory users as memoryAuthRepository, plus payments. */
export function memoryAccountRepository(auth: ReturnType<typeof memoryAuthRepository>["state"]) {
  const state = { payments: [] as Array<PaymentRecord & { userId: string }> };
  const repo: AccountRepository = {
    user: async (uid) => auth.users.get(uid) ?? null,
    async languageOfEmail(email) {
      const u = [...auth.users.values()].find((x) => x.email === email);
      return u ? { language: u.language } : null;
    },
    async setPassword(uid, passwordHash, now) {
      const u = auth.users.get(uid);
      if (u) u.passwordHash = passwordHash;
      for (const t of auth.refreshTokens.values()) if (t.userId === uid) t.revokedAt ??= now;
    },
    async changeEmail(uid, email, now) {
      if ([...auth.users.values()].some((x) => x.email === email && x.id !== uid)) return false;
      const u = auth.users.get(uid);
      if (u) Object.assign(u, { email, emailVerified: true });
      for (const t of auth.refreshTokens.values()) if (t.userId === uid) t.revokedAt ??= now;
      return true;
    },
    payments: async (uid) =>
      state.payments
        .filter((p) => p.userId === uid && ["succeeded", "failed", "refunded"].includes(p.status))
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
        .slice(0, 100),
    exportRecords: async (uid) => ({
      transcriptions: [],
      textRuns: [],
      usageEvents: auth.usageEvents.filter((e) => e.userId === uid),
      shareLinks: [],
    }),
  };
  return { repo, state };
}

const TEST_CONFIG = {
  APP_NAME: "Kikitori",
  PUBLIC_URL: "https://kikitori.test",
  JWT_SECRET: "unit-test-secret-unit-test-secret-32",
  REFRESH_TOKEN_TTL_DAYS: 30,
  VERIFY_TOKEN_TTL_HOURS: 24,
  RESET_TOKEN_TTL_MINUTES: 60,
};

/**
 * The sign-in and account use cases on in-memory records, a mailer that keeps its mails, an object
 * store that records removed prefixes, and a clock the test moves (`clock.now`).
 */
export function newTestAuthService(start = new Date("2026-03-01T09:00:00Z")) {
  const clock = { now: start };
  const now = () => clock.now;
  const { repo, state } = memoryAuthRepository();
  const account = memoryAccountRepository(state);
  const r = recorders();
  const signer = new TokenSigner(TEST_CONFIG.JWT_SECRET, 3600);
  const removedPrefixes: string[] = [];
  const ended: Array<{ uid: string; sid?: string }> = [];
  const revoked: string[] = [];
  const auth = new AuthService({
    repo,
    signer,
    mailer: r.mailer,
    store: {
      removePrefix: async (prefix: string) => removedPrefixes.push(prefix),
    },
    logger: r.logger,
    config: TEST_CONFIG,
    now,
    revocations: {
      endSession: async (sid: string) => void revoked.push(`session:${sid}`),
      endAllSessions: async (uid: string) => void revoked.push(`user:${uid}`),
    },
    onSessionsEnded: (uid, sid) => void ended.push({ uid, sid }),
  });
  const accounts = new AccountService({
    repo: account.repo,
    auth,
    signer,
    mailer: r.mailer,
    logger: r.logger,
    config: TEST_CONFIG,
    now,
  });
  /** The token of the last mailed link (verification, reset or e-mail change). */
  const lastLinkToken = () => new URL(r.mails.at(-1)?.link ?? "https://x.test/").searchParams.get("token") ?? "";
  /** A verified account with this password, as registration and its link make one. */
  const verifiedUser = async (email: string, password: string, language: Language = "en") => {
    const { mail } = await auth.register(email, password, language);
    await mail();
    await auth.verifyEmail(lastLinkToken());
    return auth.login(email, password);
  };
  return {
    auth,
    accounts,
    users: state,
    payments: account.state.payments,
    clock,
    mails: r.mails,
    smtp: r.smtp,
    logged: r.logged,
    removedPrefixes,
    ended,
    revoked,
    lastLinkToken,
    verifiedUser,
  };
}

/** A transcription_jobs row with every column, as Prisma reads it: a completed job unless `over` says otherwise. */
export function jobRow(over: Partial<JobRow> = {}): JobRow {
  const id = over.id ?? crypto.randomUUID();
  const at = new Date("2026-03-01T09:00:00Z");
  return {
    id,
    userId: "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22",
    status: "completed",
    correlationId: `c-${id}`,
    audioKey: `audio/${id}.wav`,
    audioMime: "audio/wav",
    audioFormat: "wav",
    audioBytes: 32_000,
    audioStream: 0,
    reservedSeconds: 0,
    durationSeconds: 90,
    originalName: "interview.wav",
    title: null,
    version: 1,
    editedAt: null,
    model: "standard",
    interviewer: "",
    interviewee: "",
    tone: null,
    interviewExample: "",
    language: "en",
    audioLanguage: "auto",
    detectedLanguage: "en",
    segments: null,
    speakerCount: null,
    speakerSpans: null,
    diarizationEngine: null,
    notices: [],
    speakers: null,
    glossary: [],
    transcriptionProgress: 100,
    correctionProgress: 100,
    chunkCount: 0,
    transcription: "Hello there.",
    rewrittenText: "A: Hello there.",
    interviewSync: null,
    transcriptionTime: 3,
    correctionTime: 2,
    transcriptionEngine: "test",
    correctionEngine: "test",
    errorCode: null,
    errorMessage: null,
    failedStage: null,
    audioExpiresAt: new Date("2999-01-01T00:00:00Z"),
    audioDeletedAt: null,
    audioPending: false,
    transcriptionStartedAt: at,
    transcriptionDoneAt: at,
    correctionStartedAt: at,
    correctionDoneAt: at,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

/**
 * The jobs repository in memory: jobs by id, their chunks (with the segments of those whose live
 * text went out), the transcriptions charged, the seconds each user has left and their usage rows.
 * The transitions check the state they start from, as the lifecycle module's UPDATEs do.
 */
export function memoryJobRepository() {
  const state = {
    jobs: new Map<string, JobRow>(),
    chunks: new Map<string, Array<JobChunk & { segments?: unknown[] }>>(),
    charged: new Map<string, number>(),
    secondsLeft: new Map<string, number>(),
    usage: new Map<string, UsageRow>(),
  };
  const ownJob = async (uid: string, jobId: string, message = "No such transcription") => {
    const job = state.jobs.get(jobId);
    if (!job || job.userId !== uid) throw new AppError("NOT_FOUND", message);
    return { ...job };
  };
  const update = (jobId: string, from: JobRow["status"], patch: Partial<JobRow>) => {
    const job = state.jobs.get(jobId);
    if (!job || job.status !== from) return false;
    state.jobs.set(jobId, { ...job, ...patch });
    return true;
  };
  const repo: JobRepository = {
    ownJob,
    jobsInOrder: async (ids) => ids.flatMap((id) => (state.jobs.has(id) ? [{ ...state.jobs.get(id)! }] : [])),
    search: async ({ userId, q, page, limit }) => {
      const text = (j: JobRow) => [j.title, j.originalName, j.transcription, j.rewrittenText].join(" ").toLowerCase();
      const found = [...state.jobs.values()]
        .filter((j) => j.userId === userId && (!q || text(j).includes(q.toLowerCase())))
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
      return { ids: found.slice((page - 1) * limit, page * limit).map((j) => j.id), total: found.length };
    },
    liveSegments: async (jobId) =>
      (state.chunks.get(jobId) ?? []).flatMap((c) => (c.publishedAt ? ((c.segments ?? []) as never[]) : [])),
    chunks: async (jobId) => (state.chunks.get(jobId) ?? []).map(({ segments: _, ...c }) => c),
    transcriptionCharged: async (jobId) => state.charged.has(jobId),
    chargeTranscription: async (_uid, jobId, seconds) => {
      if (state.charged.has(jobId)) return false;
      state.charged.set(jobId, seconds);
      return true;
    },
    holdForRetry: async (uid, jobId, seconds) => {
      if ((state.secondsLeft.get(uid) ?? 0) < seconds) return false;
      return update(jobId, "failed", { reservedSeconds: seconds });
    },
    retry: async (jobId, atCorrection) =>
      update(jobId, "failed", {
        status: atCorrection ? "correcting" : "queued",
        errorCode: null,
        errorMessage: null,
        failedStage: null,
      }),
    releaseQuota: async (jobId) => {
      const job = state.jobs.get(jobId);
      if (job) state.jobs.set(jobId, { ...job, reservedSeconds: 0 });
    },
    remove: async (jobId) => state.jobs.delete(jobId),
    usageRow: async (uid) => {
      const row = state.usage.get(uid);
      if (!row) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
      return row;
    },
  };
  return { repo, state };
}

/** The jobs use cases on an in-memory repository, object store (removals recorded) and queue. */
export function newTestJobService(start = new Date("2026-03-10T09:00:00Z")) {
  const { repo, state } = memoryJobRepository();
  const objects = { removed: [] as string[], failing: new Set<string>() };
  const queued: Array<{ queue: string; name: string; data: unknown; opts: unknown }> = [];
  const clock = { now: start };
  const service = new JobService({
    repo,
    objects: {
      remove: async (key) => {
        if (objects.failing.has(key)) throw new Error("store down");
        objects.removed.push(key);
      },
    },
    queues: {
      enqueue: (async (queue: string, name: string, data: unknown, opts: unknown) => {
        queued.push({ queue, name, data, opts });
      }) as never,
    },
    quotas: DEFAULT_QUOTAS,
    now: () => clock.now,
    runId: (jobId) => `${jobId}-retry`,
  });
  const r = recorders();
  return { service, repo, state, objects, queued, clock, log: r.logger, logged: r.logged };
}

/**
 * The workspace's repository in memory: jobs by id and their kept versions. Every write is a version
 * of its own (the original kept first); folding edits together and the byte budget are the shared
 * job-versions module's, covered against Postgres by services/gateway/test/workspace.int.test.ts.
 */
export function memoryWorkspaceRepository() {
  const state = { jobs: new Map<string, JobRow>(), versions: new Map<string, VersionRow[]>() };
  const versionOf = (row: JobRow, version: number, kind: string, restoredFrom: number | null, at: Date) => ({
    id: crypto.randomUUID(),
    jobId: row.id,
    version,
    kind,
    restoredFrom,
    title: row.title,
    transcription: row.transcription,
    segments: row.segments,
    rewrittenText: row.rewrittenText,
    speakers: row.speakers,
    createdAt: at,
    updatedAt: at,
  });
  const repo: WorkspaceRepository = {
    ownJob: async (uid, jobId) => {
      const job = state.jobs.get(jobId);
      if (!job || job.userId !== uid) throw new AppError("NOT_FOUND", "No such transcription");
      return { ...job };
    },
    writeVersion: async (job, next, v, sync) => {
      const row = state.jobs.get(job.id);
      if (!row || row.version !== job.version) return { saved: null, current: row?.version ?? null };
      const saved: JobRow = {
        ...row,
        ...next,
        segments: next.segments as JobRow["segments"],
        speakers: next.speakers as JobRow["speakers"],
        ...(sync !== undefined ? { interviewSync: sync as JobRow["interviewSync"] } : {}),
        version: v.version,
        editedAt: v.at,
        updatedAt: v.at,
      };
      const kept = state.versions.get(job.id) ?? [versionOf(row, row.version, "original", null, row.updatedAt)];
      state.versions.set(job.id, [...kept, versionOf(saved, v.version, v.kind, v.restoredFrom, v.at)]);
      state.jobs.set(job.id, saved);
      return { saved: { ...saved }, current: v.version };
    },
    findVersion: async (jobId, version) => state.versions.get(jobId)?.find((r) => r.version === version) ?? null,
    versions: async (jobId) => [...(state.versions.get(jobId) ?? [])].sort((a, b) => b.version - a.version),
  };
  return { repo, state };
}

/**
 * The workspace's use cases on an in-memory repository; `writes` counts the writes per job (the
 * window's seconds left fixed at 42) and `queued` holds the interview-sync jobs added.
 */
export function newTestWorkspaceService(over: { writesPerJobPerMinute?: number } = {}) {
  const { repo, state } = memoryWorkspaceRepository();
  const counts = new Map<string, number>();
  const queued: Array<{ name: string; data: unknown; opts: unknown }> = [];
  const clock = { now: new Date("2026-03-10T09:00:00Z") };
  const service = new WorkspaceService({
    repo,
    now: () => clock.now,
    writes: {
      count: async (jobId) => {
        counts.set(jobId, (counts.get(jobId) ?? 0) + 1);
        return { count: counts.get(jobId)!, ttl: 42 };
      },
    },
    limits: { writesPerJobPerMinute: over.writesPerJobPerMinute },
    jobs: {
      enqueue: (async (_queue: string, name: string, data: unknown, opts: unknown) => {
        queued.push({ name, data, opts });
      }) as never,
    },
  });
  return { service, state, queued, clock };
}
