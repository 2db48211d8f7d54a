// The interview workspace API: edits based on a version (a stale one is refused), kept
// versions and restore, title rename reaching the exports, the library's search and sort, and the
// fidelity view.
import { randomUUID } from "node:crypto";
import {
  fidelityReportSchema,
  libraryListSchema,
  transcriptionSnapshotSchema,
  transcriptVersionListSchema,
} from "@kikitori/shared";
import { apiCall } from "../../../tests/support/api.ts";
import { insertJob, insertVerifiedUser } from "../../../tests/support/db.ts";
import { startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

const SEGMENTS = [
  { start: 0, end: 4.2, text: "So, um, how did the bakery start?", speaker: 0 },
  { start: 4.5, end: 9.8, text: "We opened it in Osaka in 2019 with two ovens.", speaker: 1 },
  { start: 10.1, end: 14, text: "And the flour came from Hokkaido.", speaker: 1 },
];

async function user() {
  const { uid, email } = await insertVerifiedUser(t.db);
  const token = await t.gw.signer.sign({ sub: uid, email, email_verified: true });
  return { uid, token };
}

async function completedJob(uid: string, over: Record<string, unknown> = {}) {
  return insertJob(t.db, uid, {
    status: "completed",
    originalName: "bakery-interview.mp3",
    segments: SEGMENTS,
    transcription: SEGMENTS.map((s) => s.text).join(" "),
    rewrittenText:
      "Anna: How did the bakery start?\n\nBen: We opened it in Osaka in 2019 with two ovens. The flour came from Hokkaido.",
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Ben", role: "interviewee" },
    ],
    ...over,
  });
}

const api = (token: string, url: string, init: { method?: string; body?: unknown } = {}) =>
  apiCall(t, token, url, init);

it("edits segments, the interview text and the title against a version, and refuses a stale write", async () => {
  const { uid, token } = await user();
  const jobId = await completedJob(uid);
  const snap = transcriptionSnapshotSchema.parse((await api(token, `/api/transcriptions/${jobId}`)).body);
  expect(snap).toMatchObject({ version: 1, title: "bakery-interview.mp3", editedAt: null });

  // Tab A edits a segment: the transcript follows, times stay, the version goes up.
  const a = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: 1, segments: [{ index: 1, text: "We opened it in Osaka in 2018 with two ovens." }] },
  });
  expect(a.status).toBe(200);
  expect(a.body.version).toBe(2);
  expect(a.body.segments[1]).toMatchObject({
    start: 4.5,
    end: 9.8,
    text: "We opened it in Osaka in 2018 with two ovens.",
  });
  expect(a.body.transcription).toContain("in 2018 with two ovens. And the flour");
  expect(a.body.editedAt).not.toBeNull();

  // Tab B, still at version 1, is refused with the error shape and the current version.
  const b = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: 1, rewrittenText: "overwritten" },
  });
  expect(b.status).toBe(409);
  expect(b.body.error).toMatchObject({ code: "VERSION_CONFLICT", details: { version: 2 } });
  expect((await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).rewrittenText).not.toBe(
    "overwritten",
  );

  // Two tabs racing on the same version: exactly one write lands.
  const race = await Promise.all(
    ["first", "second"].map((w) =>
      api(token, `/api/transcriptions/${jobId}`, { method: "PATCH", body: { version: 2, rewrittenText: w } }),
    ),
  );
  expect(race.map((r) => r.status).sort()).toEqual([200, 409]);

  const title = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: 3, title: "Bäckerei in Ōsaka" },
  });
  expect(title.body).toMatchObject({ title: "Bäckerei in Ōsaka", version: 4, originalName: "bakery-interview.mp3" });
  const exp = await api(token, `/api/transcriptions/${jobId}/export?format=json&text=transcript`);
  expect(decodeURIComponent(exp.headers.get("content-disposition") ?? "")).toContain("Bäckerei in Ōsaka");
  // "" goes back to the file name.
  const reset = await api(token, `/api/transcriptions/${jobId}`, { method: "PATCH", body: { version: 4, title: "" } });
  expect(reset.body.title).toBe("bakery-interview.mp3");
});

it("keeps the original AI output and restores it as a new version", async () => {
  const { uid, token } = await user();
  const jobId = await completedJob(uid);
  const original = (await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).rewrittenText;
  let v = 1;
  for (const body of [{ rewrittenText: "edit one" }, { title: "Renamed" }]) {
    const r = await api(token, `/api/transcriptions/${jobId}`, {
      method: "PATCH",
      body: { version: v, ...body },
    });
    expect(r.status).toBe(200);
    v = r.body.version;
  }
  const list = transcriptVersionListSchema.parse((await api(token, `/api/transcriptions/${jobId}/versions`)).body);
  // Edits close together fold into one version; the original is kept.
  expect(list.versions.map((x) => [x.version, x.kind, x.current])).toEqual([
    [3, "edit", true],
    [1, "original", false],
  ]);
  const one = await api(token, `/api/transcriptions/${jobId}/versions/1`);
  expect(one.body).toMatchObject({ version: 1, kind: "original", rewrittenText: original });

  expect(
    (await api(token, `/api/transcriptions/${jobId}/versions/1/restore`, { method: "POST", body: { version: 2 } }))
      .status,
  ).toBe(409);
  const restored = await api(token, `/api/transcriptions/${jobId}/versions/1/restore`, {
    method: "POST",
    body: { version: 3 },
  });
  expect(restored.status).toBe(200);
  // The texts come back; the title stays what the user named the job.
  expect(restored.body).toMatchObject({ version: 4, rewrittenText: original, title: "Renamed" });
  const after = transcriptVersionListSchema.parse((await api(token, `/api/transcriptions/${jobId}/versions`)).body);
  expect(after.versions[0]).toMatchObject({ version: 4, kind: "restore", restoredFrom: 1, current: true });
  expect(
    (await api(token, `/api/transcriptions/${jobId}/versions/99/restore`, { method: "POST", body: { version: 4 } }))
      .status,
  ).toBe(404);
});

it("renames speakers through the same versioned edit, and refuses texts of a job still running", async () => {
  const { uid, token } = await user();
  const jobId = await completedJob(uid);
  const r = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: 1, speakers: { names: [{ id: 1, name: "Benedikt" }] } },
  });
  expect(r.status).toBe(200);
  expect(r.body.rewrittenText).toContain("Benedikt: We opened it");
  const old = await api(token, `/api/transcriptions/${jobId}/speakers`, {
    method: "PATCH",
    body: { names: [{ id: 0, name: "Annika" }] },
  });
  expect(old.body).toMatchObject({ version: 3 });

  const running = await completedJob(uid, { status: "correcting", rewrittenText: null });
  const refused = await api(token, `/api/transcriptions/${running}`, {
    method: "PATCH",
    body: { version: 1, segments: [{ index: 0, text: "x" }] },
  });
  expect(refused.status).toBe(409);
  expect(refused.body.error.code).toBe("JOB_NOT_READY");
  // The title can change at any time.
  expect(
    (await api(token, `/api/transcriptions/${running}`, { method: "PATCH", body: { version: 1, title: "Later" } }))
      .status,
  ).toBe(200);
});

it.each([
  [{}, "nothing to change"],
  [{ version: 1 }, "only a version"],
  [{ version: 0, title: "x" }, "version 0"],
  [{ version: 1, segments: [{ index: 9, text: "x" }] }, "a segment that does not exist"],
  [{ version: 1, segments: [{ index: -1, text: "x" }] }, "a negative index"],
  [{ version: 1, title: "x".repeat(256) }, "a title too long"],
  [{ version: "1", title: "x" }, "a version as a string"],
])("answers 400 to %j (%s)", async (body, _why) => {
  const { uid, token } = await user();
  const jobId = await completedJob(uid);
  const r = await api(token, `/api/transcriptions/${jobId}`, { method: "PATCH", body });
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe("VALIDATION_FAILED");
});

it("keeps other users out", async () => {
  const { uid } = await user();
  const jobId = await completedJob(uid);
  const other = await user();
  for (const [method, url, body] of [
    ["PATCH", `/api/transcriptions/${jobId}`, { version: 1, title: "mine" }],
    ["GET", `/api/transcriptions/${jobId}/versions`, undefined],
    ["GET", `/api/transcriptions/${jobId}/versions/1`, undefined],
    ["POST", `/api/transcriptions/${jobId}/versions/1/restore`, { version: 1 }],
    ["GET", `/api/transcriptions/${jobId}/fidelity`, undefined],
    ["GET", `/api/transcriptions/${randomUUID()}/fidelity`, undefined],
  ] as const) {
    expect((await api(other.token, url, { method, body })).status).toBe(404);
  }
});

it("searches titles and texts with full-text search and substrings (Japanese), sorts and pages", async () => {
  const { uid, token } = await user();
  const at = (min: number) => new Date(Date.now() - min * 60_000);
  await completedJob(uid, { createdAt: at(4), durationSeconds: 30 });
  await insertJob(t.db, uid, {
    originalName: "osaka.m4a",
    title: "Zebra talk",
    status: "completed",
    transcription: "大阪でパン屋を始めました。小麦粉は北海道から。",
    rewrittenText: "大阪でパン屋を始めました。",
    createdAt: at(3),
    durationSeconds: 600,
  });
  await insertJob(t.db, uid, {
    originalName: "meeting.wav",
    transcription: "Budget meeting about ovens",
    createdAt: at(2),
    durationSeconds: 90,
  });
  const list = async (query: string) => {
    const r = await api(token, `/api/transcriptions?${query}`);
    expect(r.status).toBe(200);
    return r.body as { total: number; jobs: Array<{ title: string }> };
  };
  const titles = async (query: string) => (await list(query)).jobs.map((j) => j.title);
  // A word inside Japanese text without spaces, and a two-character one.
  expect(await titles(`q=${encodeURIComponent("パン屋")}`)).toEqual(["Zebra talk"]);
  expect(await titles(`q=${encodeURIComponent("北海道")}`)).toEqual(["Zebra talk"]);
  // Full-text words in any order, case-insensitive; a title hit.
  expect((await titles("q=ovens")).sort()).toEqual(["bakery-interview.mp3", "meeting.wav"]);
  expect(await titles("q=OVENS%20budget")).toEqual(["meeting.wav"]);
  expect(await titles("q=zebra")).toEqual(["Zebra talk"]);
  // Part of a word, and characters that mean something to LIKE, taken literally.
  expect(await titles("q=Hokkai")).toEqual(["bakery-interview.mp3"]);
  expect((await list("q=%25")).total).toBe(0);
  expect((await list("q=_")).total).toBe(0);
  // Sorts.
  expect(await titles("sort=newest")).toEqual(["meeting.wav", "Zebra talk", "bakery-interview.mp3"]);
  expect(await titles("sort=oldest")).toEqual(["bakery-interview.mp3", "Zebra talk", "meeting.wav"]);
  expect(await titles("sort=title")).toEqual(["bakery-interview.mp3", "meeting.wav", "Zebra talk"]);
  expect(await titles("sort=longest")).toEqual(["Zebra talk", "meeting.wav", "bakery-interview.mp3"]);
  expect(await list("sort=title&limit=2&page=2")).toMatchObject({ total: 3, jobs: [{ title: "Zebra talk" }] });
  expect((await api(token, "/api/transcriptions?sort=size")).status).toBe(400);

  // The library's light view: no texts, and the passage the search found.
  const light = libraryListSchema.parse(
    (await api(token, `/api/transcriptions?view=library&q=${encodeURIComponent("北海道")}`)).body,
  );
  expect(light.jobs).toHaveLength(1);
  expect(light.jobs[0]).toMatchObject({
    title: "Zebra talk",
    snippet: "大阪でパン屋を始めました。小麦粉は北海道から。",
  });
  expect(light.jobs[0]).not.toHaveProperty("transcription");
  const hokkaido = libraryListSchema.parse((await api(token, "/api/transcriptions?view=library&q=flour")).body);
  expect(hokkaido.jobs[0].snippet).toContain("The flour came from Hokkaido.");
  const plain = libraryListSchema.parse((await api(token, "/api/transcriptions?view=library")).body);
  expect(plain.jobs.map((j) => j.snippet)).toEqual([null, null, null]);
  expect((await api(token, "/api/transcriptions?view=everything")).status).toBe(400);
});

// Both indexes lead with user_id; a GIN index serves a condition on any of its columns, so the plan of
// the text condition alone shows that each is usable. (On this tiny table the planner would rather read
// the user's rows; `npm run bench:search` shows the indexes chosen on a large library.)
it("keeps the search vector when a text is written, not on a progress update", async () => {
  const { uid, token } = await user();
  const jobId = await completedJob(uid);
  const vector = async () =>
    (
      await t.db.$queryRawUnsafe<Array<{ v: string }>>(
        `SELECT search_vector::text AS v FROM transcription_jobs WHERE id = '${jobId}'`,
      )
    )[0].v;
  expect(await vector()).toContain("'hokkaido'");
  await t.db.$executeRawUnsafe(`UPDATE transcription_jobs SET search_vector = NULL WHERE id = '${jobId}'`);
  await t.db.transcriptionJob.update({ where: { id: jobId }, data: { correctionProgress: 50 } });
  expect(await vector()).toBeNull();
  const r = await api(token, `/api/transcriptions/${jobId}`, { method: "PATCH", body: { version: 1, title: "Kyoto" } });
  expect(r.status).toBe(200);
  expect(await vector()).toContain("'kyoto'");
  expect((await api(token, "/api/transcriptions?q=kyoto")).body.total).toBe(1);
});

it("has the search indexes (user + full-text, user + trigram), usable for their text conditions", async () => {
  const rows = await t.db.$queryRawUnsafe<Array<{ indexname: string }>>(
    `SELECT indexname FROM pg_indexes WHERE tablename = 'transcription_jobs' AND indexname LIKE '%search%' ORDER BY 1`,
  );
  expect(rows.map((r) => r.indexname)).toEqual(["transcription_jobs_search_fts", "transcription_jobs_search_trgm"]);
  await t.db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
    const plan = await tx.$queryRawUnsafe<Array<{ "QUERY PLAN": string }>>(
      `EXPLAIN SELECT id FROM transcription_jobs WHERE (coalesce("title", '') || ' ' || "original_name" || ' ' || coalesce("transcription", '') || ' ' || coalesce("rewritten_text", '')) ILIKE '%パン屋を%'`,
    );
    expect(plan.map((p) => p["QUERY PLAN"]).join("\n")).toContain("transcription_jobs_search_trgm");
    const fts = await tx.$queryRawUnsafe<Array<{ "QUERY PLAN": string }>>(
      `EXPLAIN SELECT id FROM transcription_jobs WHERE search_vector @@ websearch_to_tsquery('simple', 'ovens')`,
    );
    expect(fts.map((p) => p["QUERY PLAN"]).join("\n")).toContain("transcription_jobs_search_fts");
  });
});

it("reports fidelity: traceable share, invented sentences and dropped passages", async () => {
  const { uid, token } = await user();
  const faithful = await completedJob(uid);
  const f = fidelityReportSchema.parse((await api(token, `/api/transcriptions/${faithful}/fidelity`)).body);
  expect(f.figure).toBe(1);
  expect(f.invented).toEqual([]);
  expect(f.diff?.some((d) => d.op === "removed" && /um/.test(d.text))).toBe(true);

  const invented = await completedJob(uid, {
    rewrittenText:
      "Anna: How did the bakery start?\n\nBen: We opened it in Osaka with two ovens. Our investors from Tokyo paid 5 million yen.",
  });
  const g = fidelityReportSchema.parse((await api(token, `/api/transcriptions/${invented}/fidelity`)).body);
  expect(g.figure).toBeLessThan(0.8);
  expect(g.invented).toHaveLength(1);
  expect(g.invented[0].sentence).toBe("Our investors from Tokyo paid 5 million yen.");
  expect(g.invented[0].words).toEqual(expect.arrayContaining(["investors", "Tokyo", "5"]));
  // The flour sentence did not make it into the interview.
  expect(g.dropped).toEqual([
    expect.objectContaining({ startSeconds: 10.1, text: "And the flour came from Hokkaido." }),
  ]);

  // An answer made of words said elsewhere, and an answer under the interviewer's name.
  const planted = await completedJob(uid, {
    rewrittenText:
      "Anna: How did the bakery start?\n\nBen: We opened it in Osaka in 2019 with two ovens.\n\nBen: The bakery came from Osaka.\n\nAnna: The flour came from Hokkaido.",
  });
  const p = fidelityReportSchema.parse((await api(token, `/api/transcriptions/${planted}/fidelity`)).body);
  expect(p.invented.map((f) => f.sentence)).toEqual(["The bakery came from Osaka."]);
  expect(p.misattributed).toEqual([
    expect.objectContaining({
      sentence: "The flour came from Hokkaido.",
      label: "Anna",
      heard: "Ben",
      startSeconds: 10.1,
    }),
  ]);
  expect(p.sentences.map((x) => x.speaker)).toEqual(["Anna", "Ben", null, "Ben"]);

  const running = await insertJob(t.db, uid, { status: "transcribing" });
  expect((await api(token, `/api/transcriptions/${running}/fidelity`)).status).toBe(409);
});

it("restores following each other fold into one version, like edits", async () => {
  const { uid, token } = await user();
  const jobId = await completedJob(uid);
  let v = (
    await api(token, `/api/transcriptions/${jobId}`, {
      method: "PATCH",
      body: { version: 1, rewrittenText: "edit one" },
    })
  ).body.version as number;
  for (let i = 0; i < 10; i++) {
    // Back and forth between the original and the edit: each restore is a new job version…
    const target = i % 2 === 0 ? 1 : 2;
    const r = await api(token, `/api/transcriptions/${jobId}/versions/${target}/restore`, {
      method: "POST",
      body: { version: v },
    });
    expect(r.status).toBe(200);
    v = r.body.version;
  }
  // …but the kept rows do not grow: the original, the edit and one restore (the latest).
  const rows = await t.db.transcriptVersion.findMany({ where: { jobId }, orderBy: { version: "asc" } });
  expect(rows.map((r) => r.kind)).toEqual(["original", "edit", "restore"]);
  expect(rows[2]).toMatchObject({ version: v, restoredFrom: 2 });
});

it("keeps the versions of a job within a byte budget, oldest edits first, never the original", async () => {
  const { uid } = await user();
  const jobId = await completedJob(uid);
  const { createWorkspace } = await import("../src/workspace/adapters.ts");
  const budget = 50_000;
  let clock = Date.now();
  const ws = createWorkspace({ db: t.db, now: () => new Date(clock), limits: { keptVersionBytes: budget } });
  for (let i = 0; i < 12; i++) {
    clock += 10 * 60_000; // past the fold window: every edit is its own version
    const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
    await ws.edit(job, { version: job.version, rewrittenText: `${i} ${"x".repeat(10_000)}` });
  }
  const rows = await t.db.transcriptVersion.findMany({ where: { jobId }, orderBy: { version: "asc" } });
  expect(rows[0].kind).toBe("original");
  const kept = rows.slice(1);
  const bytes = kept.reduce(
    (n, r) =>
      n +
      Buffer.byteLength(JSON.stringify(r.segments ?? "")) +
      (r.rewrittenText?.length ?? 0) +
      (r.transcription?.length ?? 0),
    0,
  );
  expect(kept.length).toBeLessThan(12);
  expect(kept.length).toBeGreaterThan(0);
  expect(bytes).toBeLessThanOrEqual(budget + 2_000);
  // The newest edit is kept.
  expect(kept.at(-1)?.rewrittenText?.startsWith("11 ")).toBe(true);
});

it("limits writes per job: past the limit a PATCH answers 429 with Retry-After in the error shape", async () => {
  const { uid, token } = await user();
  const jobId = await completedJob(uid);
  const { WRITES_PER_JOB_PER_MINUTE } = await import("../src/workspace/adapters.ts");
  let v = 1;
  for (let i = 0; i < WRITES_PER_JOB_PER_MINUTE; i++) {
    const r = await api(token, `/api/transcriptions/${jobId}`, {
      method: "PATCH",
      body: { version: v, title: `t${i}` },
    });
    expect(r.status).toBe(200);
    v = r.body.version;
  }
  const over = await api(token, `/api/transcriptions/${jobId}`, {
    method: "PATCH",
    body: { version: v, title: "more" },
  });
  expect([over.status, over.body.error.code]).toEqual([429, "RATE_LIMITED"]);
  expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  const restore = await api(token, `/api/transcriptions/${jobId}/versions/1/restore`, {
    method: "POST",
    body: { version: v },
  });
  expect(restore.status).toBe(429);
  // Another job of the same user is not affected.
  const other = await completedJob(uid);
  expect(
    (await api(token, `/api/transcriptions/${other}`, { method: "PATCH", body: { version: 1, title: "x" } })).status,
  ).toBe(200);
});
