// The interview text follows the edited transcript: a word fixed in a segment, a line given to the
// other speaker and a line split in two reach the interview text through the sync job (run here by
// its handler, with the offline engine, on a real database), every other turn untouched; a turn the
// user edited by hand becomes a conflict the user resolves; contractions stay; Japanese works.
import {
  QUEUES,
  type TranscriptSegment,
  transcriptionSnapshotSchema,
  transcriptVersionListSchema,
} from "@kikitori/shared";
import { createLogger } from "@kikitori/shared/server";
import { Queue } from "bullmq";
import { OfflineCorrectionEngine } from "../../services/text-worker/src/correction/index.ts";
import { heardSpeakers } from "../../services/text-worker/src/handlers/correct.ts";
import { processInterviewSync } from "../../services/text-worker/src/handlers/sync-interview.ts";
import { apiCall } from "../support/api.ts";
import { insertJob, insertVerifiedUser } from "../support/db.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

const engine = new OfflineCorrectionEngine();
const logger = createLogger("sync-test", "silent");

const EN: TranscriptSegment[] = [
  { start: 0, end: 4, text: "so um how did you start baking bread", speaker: 0 },
  { start: 4, end: 9, text: "i'm a baker since nineteen ninety my father had a shop", speaker: 1 },
  { start: 9, end: 14, text: "we'd get up at three every morning to light the ovens", speaker: 1 },
  { start: 14, end: 19, text: "i didn't like it at first but i learned", speaker: 1 },
  { start: 19, end: 23, text: "and what did you take from him", speaker: 0 },
  { start: 23, end: 29, text: "i took the recipes and the patience he didn't write anything down", speaker: 1 },
];
const SPEAKERS = [
  { id: 0, name: "Anna", role: "interviewer" },
  { id: 1, name: "Ben", role: "interviewee" },
];

/** A finished job whose interview text the offline engine wrote from its turns, as the pipeline does. */
async function finishedJob(uid: string, segments: TranscriptSegment[], language = "en") {
  const row = { segments, interviewer: "Anna", interviewee: "Ben", language, speakers: SPEAKERS };
  const heard = heardSpeakers(row, language);
  const { text } = await engine.correct({
    transcript: segments.map((s) => s.text).join(" "),
    language,
    turns: heard?.turns,
    interviewer: "Anna",
    interviewee: "Ben",
    tone: null,
    interviewExample: "",
    fileType: "general",
  });
  return insertJob(t.db, uid, {
    status: "completed",
    language,
    audioLanguage: language,
    segments,
    transcription: segments.map((s) => s.text).join(language === "ja" ? "" : " "),
    rewrittenText: text,
    speakers: heard?.speakers ?? SPEAKERS,
    interviewer: "Anna",
    interviewee: "Ben",
  });
}

async function user() {
  const { uid, email } = await insertVerifiedUser(t.db);
  const token = await t.gw.signer.sign({ sub: uid, email, email_verified: true });
  return { uid, token };
}

const api = (token: string, url: string, init: { method?: string; body?: unknown } = {}) =>
  apiCall(t, token, url, init);

const snapshot = async (token: string, jobId: string) =>
  transcriptionSnapshotSchema.parse((await api(token, `/api/transcriptions/${jobId}`)).body);
const paragraphs = (text: string | null) => (text ?? "").split(/\n\s*\n/).map((p) => p.trim());
/** What the worker does with the job the edit added. */
const runSync = (jobId: string, userId: string) =>
  processInterviewSync({ db: t.db, engine, logger }, { id: "x", data: { jobId, userId } } as never);

it("a word fixed in a segment reaches its turn only; contractions stay; the sync is a version", async () => {
  const { uid, token } = await user();
  const jobId = await finishedJob(uid, EN);
  const before = await snapshot(token, jobId);
  expect(before.interviewSync).toBe("in-sync");
  for (const c of [/\bI'm\b/, /\bwe'd\b/i, /\bdidn't\b/]) expect(before.rewrittenText).toMatch(c);

  const edited = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: {
      version: before.version,
      segments: [{ index: 2, text: "we'd get up at four every morning to light the ovens" }],
    },
  });
  expect(edited.status).toBe(200);
  expect(edited.body.interviewSync).toBe("updating");
  // The gateway added the sync job for the worker.
  const queue = new Queue(QUEUES.correction, { connection: { url: process.env.REDIS_URL }, prefix: t.prefix });
  const queued = await queue.getJobs(["delayed", "waiting"]);
  await queue.close();
  expect(queued.some((j) => j.name === "sync-interview" && j.data.jobId === jobId)).toBe(true);

  await expect(runSync(jobId, uid)).resolves.toMatchObject({ synced: true, updated: 1, conflicts: 0 });
  const after = await snapshot(token, jobId);
  expect(after.interviewSync).toBe("in-sync");
  expect(after.version).toBe(edited.body.version + 1);
  expect(after.rewrittenText).toContain("four every morning");
  expect(after.rewrittenText).not.toContain("three every morning");
  for (const c of [/\bI'm\b/, /\bwe'd\b/i, /\bdidn't\b/]) expect(after.rewrittenText).toMatch(c);
  const [b, a] = [paragraphs(before.rewrittenText), paragraphs(after.rewrittenText)];
  expect(a).toHaveLength(b.length);
  expect(a.filter((p, i) => p !== b[i])).toHaveLength(1);

  const versions = transcriptVersionListSchema.parse((await api(token, `/api/transcriptions/${jobId}/versions`)).body);
  expect(versions.versions[0]).toMatchObject({ kind: "sync", current: true });
  // Nothing left to do: a second run of the job changes nothing.
  await expect(runSync(jobId, uid)).resolves.toMatchObject({ synced: false });
});

it("one line in the middle of a run given to the other speaker shows under that speaker", async () => {
  const { uid, token } = await user();
  const jobId = await finishedJob(uid, EN);
  const before = await snapshot(token, jobId);
  const r = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: before.version, segments: [{ index: 2, text: EN[2].text, speaker: 0 }] },
  });
  expect(r.status).toBe(200);
  await runSync(jobId, uid);
  const after = await snapshot(token, jobId);
  const ps = paragraphs(after.rewrittenText);
  const moved = ps.find((p) => /get up at three/i.test(p));
  expect(moved).toMatch(/^Anna:/);
  expect(ps.find((p) => /baker since/i.test(p))).toMatch(/^Ben:/);
  expect(ps.find((p) => /didn't like it/i.test(p))).toMatch(/^Ben:/);
  expect(ps).toHaveLength(paragraphs(before.rewrittenText).length + 2);
});

it("a line split at a word: the second part goes to the other speaker", async () => {
  const { uid, token } = await user();
  const jobId = await finishedJob(uid, EN);
  const before = await snapshot(token, jobId);
  const at = EN[3].text.indexOf("but");
  const r = await api(token, `/api/transcriptions/${jobId}/segments/3/split`, {
    method: "POST",
    body: { version: before.version, at, speaker: 0 },
  });
  expect(r.status).toBe(200);
  expect(r.body.segments).toHaveLength(EN.length + 1);
  expect(r.body.segments[3]).toMatchObject({ text: "i didn't like it at first", speaker: 1, start: 14 });
  expect(r.body.segments[4]).toMatchObject({ text: "but i learned", speaker: 0, end: 19 });
  expect(r.body.segments[3].end).toBe(r.body.segments[4].start);
  await runSync(jobId, uid);
  const ps = paragraphs((await snapshot(token, jobId)).rewrittenText);
  expect(ps.find((p) => /but I learned/i.test(p))).toMatch(/^Anna:/);
  const bad = await api(token, `/api/transcriptions/${jobId}/segments/99/split`, {
    method: "POST",
    body: { version: r.body.version, at: 3 },
  });
  expect(bad.status).toBe(400);
});

it("a turn edited by hand becomes a conflict; the user keeps either wording", async () => {
  const { uid, token } = await user();
  const jobId = await finishedJob(uid, EN);
  const s1 = await snapshot(token, jobId);
  const mine = (s1.rewrittenText ?? "").replace(/my father had a shop/i, "my dad ran a small shop");
  expect(mine).not.toBe(s1.rewrittenText);
  const s2 = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: s1.version, rewrittenText: mine },
  });
  const s3 = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: {
      version: s2.body.version,
      segments: [{ index: 1, text: "i'm a baker since nineteen eighty my father had a shop" }],
    },
  });
  await expect(runSync(jobId, uid)).resolves.toMatchObject({ synced: true, conflicts: 1 });
  const s4 = await snapshot(token, jobId);
  expect(s4.interviewSync).toBe("conflicts");
  expect(s4.rewrittenText).toBe(mine);
  const [c] = s4.interviewConflicts;
  expect(c.interviewText).toContain("my dad ran a small shop");
  expect(c.transcriptText).toMatch(/nineteen eighty/i);
  expect(c.start).toBe(4);

  // An edit based on the version before the sync still goes in (the sync was not the user's)...
  const later = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: s3.body.version, title: "Bakery" },
  });
  expect(later.status).toBe(200);
  // ...but an interview text based on it would undo the sync: refused.
  const stale = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: s3.body.version, rewrittenText: "x" },
  });
  expect(stale.status).toBe(409);

  const missing = await api(token, `/api/transcriptions/${jobId}/interview-sync`, {
    method: "POST",
    body: { version: later.body.version, conflict: "nope", keep: "transcript" },
  });
  expect(missing.status).toBe(404);
  const resolved = await api(token, `/api/transcriptions/${jobId}/interview-sync`, {
    method: "POST",
    body: { version: later.body.version, conflict: c.id, keep: "transcript" },
  });
  expect(resolved.status).toBe(200);
  expect(resolved.body.interviewSync).toBe("in-sync");
  expect(resolved.body.rewrittenText).toMatch(/nineteen eighty/i);
  expect(resolved.body.rewrittenText).not.toContain("my dad");
});

it("renaming a speaker relabels the text and the sync keeps following", async () => {
  const { uid, token } = await user();
  const jobId = await finishedJob(uid, EN);
  const s1 = await snapshot(token, jobId);
  const renamed = await api(token, `/api/transcriptions/${jobId}/speakers`, {
    method: "PATCH",
    body: { names: [{ id: 1, name: "Benedikt" }] },
  });
  expect(renamed.status).toBe(200);
  expect(renamed.body.rewrittenText).toContain("Benedikt:");
  const r = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: {
      version: renamed.body.version,
      segments: [{ index: 5, text: "i took the recipes and the patience he never wrote anything down" }],
    },
  });
  expect(r.status).toBe(200);
  await expect(runSync(jobId, uid)).resolves.toMatchObject({ synced: true, updated: 1, conflicts: 0 });
  const after = await snapshot(token, jobId);
  expect(after.rewrittenText).toMatch(/Benedikt: I took the recipes and the patience he never wrote anything down/);
  expect(paragraphs(after.rewrittenText)).toHaveLength(paragraphs(s1.rewrittenText).length);
});

it("works in Japanese", async () => {
  const { uid, token } = await user();
  const JA: TranscriptSegment[] = [
    { start: 0, end: 3, text: "パン作りはいつから始めましたか", speaker: 0 },
    { start: 3, end: 8, text: "父がパン屋をやっていて十歳から手伝っていました", speaker: 1 },
    { start: 8, end: 11, text: "何を学びましたか", speaker: 0 },
    { start: 11, end: 16, text: "忍耐とレシピを学びました", speaker: 1 },
  ];
  const jobId = await finishedJob(uid, JA, "ja");
  const s1 = await snapshot(token, jobId);
  await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: s1.version, segments: [{ index: 3, text: "忍耐と味を学びました" }] },
  });
  await expect(runSync(jobId, uid)).resolves.toMatchObject({ synced: true, updated: 1 });
  const after = await snapshot(token, jobId);
  expect(after.rewrittenText).toContain("忍耐と味を学びました");
  expect(after.rewrittenText).not.toContain("レシピ");
  expect(paragraphs(after.rewrittenText).slice(0, 3)).toEqual(paragraphs(s1.rewrittenText).slice(0, 3));
});
