// Read-only share links against a real gateway: the owner makes, lists and revokes links (another
// user's job is 404, bad input 400, more than the limit 409); anyone reads a live link without a
// login, with no caching or indexing; an expired or revoked link is 404 at once; the token opens
// nothing else (401 as a bearer, also on PATCH; the socket closes 4401); the signed audio URL plays
// with byte ranges and refuses a changed signature or a lapsed one; deleting the job removes its links.
import { createHash } from "node:crypto";
import { jest } from "@jest/globals";
import {
  createdShareSchema,
  SHARES_PER_JOB_MAX,
  sharedTranscriptionSchema,
  shareListSchema,
  WS_CLOSE_UNAUTHENTICATED,
} from "@kikitori/shared";
import { createObjectStore, type ObjectStore } from "@kikitori/shared/server";
import WebSocket from "ws";
import { insertJob, insertVerifiedUser } from "../../../tests/support/db.ts";
import { api, startReplica, startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { loadGatewayConfig } from "../src/config.ts";
import { createPageRenderer } from "../src/web/page-meta.ts";

jest.setTimeout(60_000);

let t: TestGateway;
let store: ObjectStore;
/** The gateway's clock: real time moved by `offsetMs`. */
let offsetMs = 0;
beforeAll(async () => {
  t = await startTestGateway({ now: () => new Date(Date.now() + offsetMs) });
  store = createObjectStore(loadGatewayConfig(t.env));
});
afterEach(() => {
  offsetMs = 0;
});
afterAll(async () => {
  await t?.close();
});

const AUDIO = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
const SEGMENTS = [
  { start: 0, end: 4.2, text: "So how did the bakery start?", speaker: 0 },
  { start: 4.5, end: 9.8, text: "We opened it in Osaka in 2019.", speaker: 1 },
];
const INTERVIEW = "Anna: How did the bakery start?\n\nBen: We opened it in Osaka in 2019.";

async function user() {
  const { uid, email } = await insertVerifiedUser(t.db);
  const token = await t.gw.signer.sign({ sub: uid, email, email_verified: true });
  return { uid, token };
}

/** A completed job of `uid` whose recording is in the store. */
async function completedJob(uid: string, over: Record<string, unknown> = {}) {
  const jobId = await insertJob(t.db, uid, {
    status: "completed",
    originalName: "bakery.mp3",
    title: "The Osaka bakery",
    audioBytes: AUDIO.length,
    detectedLanguage: "en",
    durationSeconds: 9.8,
    segments: SEGMENTS,
    transcription: SEGMENTS.map((s) => s.text).join(" "),
    rewrittenText: INTERVIEW,
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Ben", role: "interviewee" },
    ],
    ...over,
  });
  const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  await store.put(job.audioKey, AUDIO, AUDIO.length, "audio/mpeg");
  return jobId;
}

const share = (token: string, jobId: string, body: unknown) =>
  api(t.url, "POST", `/api/transcriptions/${jobId}/shares`, { token, body });

it("makes, lists and revokes links; only the owner can; the link opens without a login until revoked", async () => {
  const owner = await user();
  const other = await user();
  const jobId = await completedJob(owner.uid);

  const made = await share(owner.token, jobId, { expiresInDays: 7, includeAudio: false, language: "ja" });
  expect(made.status).toBe(201);
  const link = createdShareSchema.parse(made.body);
  expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(link.url).toBe(`${t.env.PUBLIC_URL ?? "http://localhost:3000"}/ja/shared/${link.token}`);
  const days = (Date.parse(link.expiresAt) - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(6.99);
  expect(days).toBeLessThanOrEqual(7);
  // Only the token's SHA-256 is stored.
  const row = await t.db.transcriptShare.findUniqueOrThrow({ where: { id: link.id } });
  expect(row.tokenHash).toBe(createHash("sha256").update(link.token).digest("hex"));
  expect(JSON.stringify(row)).not.toContain(link.token);

  // The listing shows the link without its token.
  const listed = await api(t.url, "GET", `/api/transcriptions/${jobId}/shares`, { token: owner.token });
  expect(listed.status).toBe(200);
  expect(shareListSchema.parse(listed.body).shares.map((s) => s.id)).toEqual([link.id]);
  expect(JSON.stringify(listed.body)).not.toContain(link.token);

  // Someone else's job does not exist for them; nor does its link to revoke.
  expect((await share(other.token, jobId, { expiresInDays: 7, includeAudio: false })).status).toBe(404);
  expect((await api(t.url, "GET", `/api/transcriptions/${jobId}/shares`, { token: other.token })).status).toBe(404);
  const foreignRevoke = await api(t.url, "DELETE", `/api/transcriptions/${jobId}/shares/${link.id}`, {
    token: other.token,
  });
  expect(foreignRevoke.status).toBe(404);
  // Without a login nothing of this is reachable.
  expect((await api(t.url, "GET", `/api/transcriptions/${jobId}/shares`)).status).toBe(401);

  // Anyone with the link reads the interview: no login, not cached, not indexed.
  const opened = await api(t.url, "GET", `/api/shared/${link.token}`);
  expect(opened.status).toBe(200);
  expect(opened.headers.get("cache-control")).toBe("no-store");
  expect(opened.headers.get("x-robots-tag")).toContain("noindex");
  expect(sharedTranscriptionSchema.parse(opened.body)).toMatchObject({
    title: "The Osaka bakery",
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Ben", role: "interviewee" },
    ],
    segments: SEGMENTS,
    rewrittenText: INTERVIEW,
    durationSeconds: 9.8,
    language: "en",
    expiresAt: link.expiresAt,
    audioUrl: null,
  });
  // It shows nothing that is the owner's business.
  for (const key of ["jobId", "originalName", "version", "userId", "audioFileUrl"])
    expect(opened.body).not.toHaveProperty(key);
  expect((await t.db.transcriptShare.findUniqueOrThrow({ where: { id: link.id } })).lastOpenedAt).not.toBeNull();

  // Revoked: at once 404, its headers still private; revoking again changes nothing.
  const revoked = await api(t.url, "DELETE", `/api/transcriptions/${jobId}/shares/${link.id}`, { token: owner.token });
  expect(revoked.status).toBe(204);
  const gone = await api(t.url, "GET", `/api/shared/${link.token}`);
  expect(gone.status).toBe(404);
  expect(gone.body.error.code).toBe("NOT_FOUND");
  expect(gone.headers.get("cache-control")).toBe("no-store");
  expect(gone.headers.get("x-robots-tag")).toContain("noindex");
  expect(
    (await api(t.url, "DELETE", `/api/transcriptions/${jobId}/shares/${link.id}`, { token: owner.token })).status,
  ).toBe(204);
  expect((await api(t.url, "GET", `/api/transcriptions/${jobId}/shares`, { token: owner.token })).body.shares).toEqual(
    [],
  );
  const unknownShare = "00000000-0000-4000-8000-000000000000";
  expect(
    (await api(t.url, "DELETE", `/api/transcriptions/${jobId}/shares/${unknownShare}`, { token: owner.token })).status,
  ).toBe(404);
  expect(
    (await api(t.url, "DELETE", `/api/transcriptions/${jobId}/shares/not-a-uuid`, { token: owner.token })).status,
  ).toBe(404);

  // Unknown and malformed tokens are 404 alike.
  expect((await api(t.url, "GET", `/api/shared/${"A".repeat(43)}`)).status).toBe(404);
  expect((await api(t.url, "GET", "/api/shared/short")).status).toBe(404);
});

it("refuses bad input, a job without a transcript, and more live links than allowed (also in parallel)", async () => {
  const owner = await user();
  const jobId = await completedJob(owner.uid);
  for (const body of [
    { expiresInDays: 0, includeAudio: false },
    { expiresInDays: 91, includeAudio: false },
    { expiresInDays: 1.5, includeAudio: false },
    { includeAudio: true },
    { expiresInDays: 7, includeAudio: "yes" },
    { expiresInDays: 7, language: "xx" },
  ]) {
    const r = await share(owner.token, jobId, body);
    expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([
      JSON.stringify(body),
      400,
      "VALIDATION_FAILED",
    ]);
  }
  const queued = await insertJob(t.db, owner.uid, { status: "queued" });
  const notReady = await share(owner.token, queued, { expiresInDays: 1, includeAudio: false });
  expect([notReady.status, notReady.body.error.code]).toEqual([409, "JOB_NOT_READY"]);

  // Parallel requests cannot pass the limit.
  const tries = await Promise.all(
    Array.from({ length: SHARES_PER_JOB_MAX + 5 }, () => share(owner.token, jobId, { expiresInDays: 1 })),
  );
  expect(tries.filter((r) => r.status === 201)).toHaveLength(SHARES_PER_JOB_MAX);
  const refused = tries.filter((r) => r.status !== 201);
  expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(
    Array.from({ length: 5 }, () => [409, "SHARE_LIMIT_REACHED"]),
  );
  // Revoking one makes room for another.
  const first = tries.find((r) => r.status === 201)!.body;
  await api(t.url, "DELETE", `/api/transcriptions/${jobId}/shares/${first.id}`, { token: owner.token });
  expect((await share(owner.token, jobId, { expiresInDays: 1 })).status).toBe(201);
});

it("an expired link is 404 and leaves the listing; deleting the job removes its links", async () => {
  const owner = await user();
  const jobId = await completedJob(owner.uid);
  const day = createdShareSchema.parse((await share(owner.token, jobId, { expiresInDays: 1 })).body);
  const month = createdShareSchema.parse((await share(owner.token, jobId, { expiresInDays: 30 })).body);

  offsetMs = 86_400_000 + 60_000;
  expect((await api(t.url, "GET", `/api/shared/${day.token}`)).status).toBe(404);
  expect((await api(t.url, "GET", `/api/shared/${month.token}`)).status).toBe(200);
  const listed = await api(t.url, "GET", `/api/transcriptions/${jobId}/shares`, { token: owner.token });
  expect(listed.body.shares.map((s: { id: string }) => s.id)).toEqual([month.id]);

  // The account's data download lists the links (never a token or its hash).
  const data = await api(t.url, "GET", "/api/auth/account/export", { token: owner.token });
  expect(data.body.shareLinks.map((l: { id: string }) => l.id).sort()).toEqual([day.id, month.id].sort());
  const listedMonth = data.body.shareLinks.find((l: { id: string }) => l.id === month.id);
  expect(listedMonth).toEqual({
    id: month.id,
    jobId,
    includeAudio: false,
    createdAt: month.createdAt,
    expiresAt: month.expiresAt,
    revokedAt: null,
    lastOpenedAt: expect.any(String),
  });
  for (const secret of [day.token, month.token]) expect(JSON.stringify(data.body)).not.toContain(secret);

  expect((await api(t.url, "DELETE", `/api/transcriptions/${jobId}`, { token: owner.token })).status).toBe(204);
  expect(await t.db.transcriptShare.count({ where: { jobId } })).toBe(0);
  expect((await api(t.url, "GET", `/api/shared/${month.token}`)).status).toBe(404);
});

it("a share token opens no other endpoint: 401 as a bearer, also for PATCH", async () => {
  const owner = await user();
  const jobId = await completedJob(owner.uid);
  const link = createdShareSchema.parse(
    (await share(owner.token, jobId, { expiresInDays: 7, includeAudio: true })).body,
  );
  const as = { token: link.token };
  const calls: Array<[string, string, unknown?]> = [
    ["PATCH", `/api/transcriptions/${jobId}`, { version: 1, title: "Hijacked" }],
    ["PATCH", `/api/transcriptions/${jobId}/speakers`, { names: [{ id: 0, name: "X" }] }],
    ["GET", `/api/transcriptions/${jobId}`],
    ["GET", "/api/transcriptions"],
    ["GET", `/api/audio/${jobId}`],
    ["GET", `/api/transcriptions/${jobId}/export?format=txt`],
    ["GET", `/api/transcriptions/${jobId}/shares`],
    ["POST", `/api/transcriptions/${jobId}/shares`, { expiresInDays: 1 }],
    ["DELETE", `/api/transcriptions/${jobId}/shares/${link.id}`],
    ["DELETE", `/api/transcriptions/${jobId}`],
    ["GET", "/api/user-usage"],
    ["GET", "/api/auth/account"],
    ["GET", "/api/auth/account/export"],
  ];
  for (const [method, path, body] of calls) {
    const r = await api(t.url, method, path, { ...as, body });
    expect([method, path, r.status]).toEqual([method, path, 401]);
  }
  // Nor does it open the progress socket.
  const ws = new WebSocket(`${t.url.replace("http", "ws")}/ws`);
  const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
  ws.once("open", () => ws.send(JSON.stringify({ type: "auth", token: link.token })));
  expect(await closed).toBe(WS_CLOSE_UNAUTHENTICATED);
  const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  expect(job.title).toBe("The Osaka bakery");
  expect(job.version).toBe(1);
  expect((await api(t.url, "GET", `/api/shared/${link.token}`)).status).toBe(200);
});

it("the signed audio URL plays (whole and by range) for 15 minutes, and refuses a changed signature", async () => {
  const owner = await user();
  const jobId = await completedJob(owner.uid);
  const link = createdShareSchema.parse(
    (await share(owner.token, jobId, { expiresInDays: 7, includeAudio: true })).body,
  );
  const opened = sharedTranscriptionSchema.parse((await api(t.url, "GET", `/api/shared/${link.token}`)).body);
  expect(opened.audioUrl).toMatch(new RegExp(`^/api/shared/${link.token}/audio\\?exp=\\d+&sig=[\\w%-]+$`));
  const minutes = (Date.parse(opened.audioUrlExpiresAt!) - Date.now()) / 60_000;
  expect(minutes).toBeGreaterThan(14);
  expect(minutes).toBeLessThanOrEqual(15);
  const url = `${t.url}${opened.audioUrl}`;

  const whole = await fetch(url);
  expect(whole.status).toBe(200);
  expect(whole.headers.get("accept-ranges")).toBe("bytes");
  expect(whole.headers.get("content-type")).toBe("audio/mpeg");
  expect(Buffer.from(await whole.arrayBuffer())).toEqual(AUDIO);
  const part = await fetch(url, { headers: { range: "bytes=100-199" } });
  expect(part.status).toBe(206);
  expect(part.headers.get("content-range")).toBe(`bytes 100-199/${AUDIO.length}`);
  expect(Buffer.from(await part.arrayBuffer())).toEqual(AUDIO.subarray(100, 200));
  expect((await fetch(url, { headers: { range: "bytes=5000-" } })).status).toBe(416);

  // A changed signature or expiry, or no signature: refused, nothing streamed.
  const u = new URL(url);
  const sig = u.searchParams.get("sig")!;
  const flipped = `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`;
  const tampered = new URL(url);
  tampered.searchParams.set("sig", flipped);
  expect((await fetch(tampered)).status).toBe(403);
  const later = new URL(url);
  later.searchParams.set("exp", String(Number(u.searchParams.get("exp")) + 3600));
  expect((await fetch(later)).status).toBe(403);
  expect((await fetch(`${t.url}/api/shared/${link.token}/audio`)).status).toBe(400);
  // Another link's token with this signature: refused.
  const second = createdShareSchema.parse(
    (await share(owner.token, jobId, { expiresInDays: 7, includeAudio: true })).body,
  );
  expect((await fetch(url.replace(link.token, second.token))).status).toBe(403);

  // After 15 minutes the URL lapses (reloading the link gives a new one).
  offsetMs = 16 * 60_000;
  const lapsed = await fetch(url);
  expect(lapsed.status).toBe(403);
  expect(((await lapsed.json()) as { error: { code: string } }).error.code).toBe("FORBIDDEN");
  const fresh = sharedTranscriptionSchema.parse((await api(t.url, "GET", `/api/shared/${link.token}`)).body);
  expect((await fetch(`${t.url}${fresh.audioUrl}`)).status).toBe(200);

  // Revoked: the audio stops at once too.
  offsetMs = 0;
  await api(t.url, "DELETE", `/api/transcriptions/${jobId}/shares/${link.id}`, { token: owner.token });
  expect((await fetch(url)).status).toBe(404);
});

it("gives no audio URL when the link leaves the audio out or the recording is past retention", async () => {
  const owner = await user();
  const jobId = await completedJob(owner.uid);
  const without = createdShareSchema.parse((await share(owner.token, jobId, { expiresInDays: 7 })).body);
  expect((await api(t.url, "GET", `/api/shared/${without.token}`)).body.audioUrl).toBeNull();

  const expired = await completedJob(owner.uid, {
    audioDeletedAt: new Date(),
    audioExpiresAt: new Date(Date.now() - 1000),
  });
  const link = createdShareSchema.parse(
    (await share(owner.token, expired, { expiresInDays: 7, includeAudio: true })).body,
  );
  const opened = await api(t.url, "GET", `/api/shared/${link.token}`);
  expect(opened.status).toBe(200);
  expect(opened.body).toMatchObject({ audioUrl: null, audioUrlExpiresAt: null, rewrittenText: INTERVIEW });
});

it("the shared page's HTML tells search engines not to index it", async () => {
  const pages = createPageRenderer({
    indexHtml: "<html><head><title>K</title></head><body></body></html>",
    texts: {
      en: {
        meta: { title: "{{page}} | {{appName}}", pages: { shared: "A shared interview.", summary: "Summaries." } },
        titles: { "sharedPage.title": "Shared interview", "tools.summary.title": "Summary" },
      },
    },
    appName: "Kikitori",
    publicUrl: "https://k.example",
  });
  const html = pages.render(`/en/shared/${"a".repeat(43)}`);
  expect(html).toContain("<title>Shared interview | Kikitori</title>");
  expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
  expect(pages.render("/en/summary")).not.toContain('name="robots"');
});

it("describes the share routes in the OpenAPI document", async () => {
  const doc = (await api(t.url, "GET", "/api/docs/json")).body;
  expect(Object.keys(doc.paths["/api/transcriptions/{jobId}/shares"]).sort()).toEqual(["get", "post"]);
  expect(Object.keys(doc.paths["/api/transcriptions/{jobId}/shares/{shareId}"])).toEqual(["delete"]);
  expect(doc.paths["/api/shared/{token}"].get.responses["200"]).toBeDefined();
  expect(doc.paths["/api/shared/{token}"].get.security).toBeUndefined();
  expect(doc.paths["/api/shared/{token}/audio"].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
    "exp",
    "sig",
    "token",
  ]);
});

it("limits how often one address opens links (RATE_LIMIT_SHARED_PER_IP_PER_MINUTE)", async () => {
  const owner = await user();
  const jobId = await completedJob(owner.uid);
  const link = createdShareSchema.parse((await share(owner.token, jobId, { expiresInDays: 1 })).body);
  const strict = await startReplica(t, { RATE_LIMIT_SHARED_PER_IP_PER_MINUTE: "3" });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api(strict.url, "GET", `/api/shared/${link.token}`)).status);
    const last = await api(strict.url, "GET", `/api/shared/${link.token}`);
    expect([last.status, last.body.error.code]).toEqual([429, "RATE_LIMITED"]);
    expect(last.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
  } finally {
    await strict.close();
  }
});
