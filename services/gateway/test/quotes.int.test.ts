// Quotes of a job (POST/GET/PATCH/DELETE /api/transcriptions/{jobId}/quotes…): a quote over an
// answer's time range has that answer's words and speaker name, is listed, follows an edit of its
// words (marked stale until accepted), is exported as Markdown, TXT and DOCX with [mm:ss] and the name;
// another user gets 404; a bad range is a 400; the per-job limit is a 409.
import mammoth from "mammoth";
import { userWithInterview } from "../../../tests/support/db.ts";
import { startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { createQuoteService, type QuoteService } from "../src/quotes/usecases.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

const userWithJob = (over: Record<string, unknown> = {}) =>
  userWithInterview(t, {
    rewrittenText: "Anna: So how did it start?\n\nDr. Tanaka: It started in a garage.",
    ...over,
  });

const call = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${t.url}/api/transcriptions/${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });

it("saves a quote over an answer with its speaker, lists, notes, tags and deletes it", async () => {
  const { token, jobId } = await userWithJob();
  const res = await call(token, "POST", `${jobId}/quotes`, { start: 2.5, end: 6, note: "Lead", tags: ["origin"] });
  expect(res.status).toBe(201);
  const quote = await res.json();
  expect(quote).toMatchObject({
    start: 2.5,
    end: 6,
    speaker: "Dr. Tanaka",
    text: "It started in a garage.",
    note: "Lead",
    tags: ["origin"],
    stale: false,
    savedText: null,
  });
  await call(token, "POST", `${jobId}/quotes`, { start: 0.5, end: 2 });
  const list = await (await call(token, "GET", `${jobId}/quotes`)).json();
  expect(list.quotes.map((q: { text: string; speaker: string }) => [q.speaker, q.text])).toEqual([
    ["Anna", "So how did it start?"],
    ["Dr. Tanaka", "It started in a garage."],
  ]);

  const patched = await call(token, "PATCH", `${jobId}/quotes/${quote.id}`, { note: "", tags: ["a", "b"] });
  expect(patched.status).toBe(200);
  expect(await patched.json()).toMatchObject({ note: null, tags: ["a", "b"] });
  expect((await call(token, "DELETE", `${jobId}/quotes/${quote.id}`)).status).toBe(204);
  expect((await call(token, "DELETE", `${jobId}/quotes/${quote.id}`)).status).toBe(404);
  expect((await (await call(token, "GET", `${jobId}/quotes`)).json()).quotes).toHaveLength(1);
});

it("another user's job or quote is 404; a bad range or body is 400", async () => {
  const owner = await userWithJob();
  const other = await userWithJob();
  const quote = await (await call(owner.token, "POST", `${owner.jobId}/quotes`, { start: 2.5, end: 6 })).json();
  expect((await call(other.token, "GET", `${owner.jobId}/quotes`)).status).toBe(404);
  expect((await call(other.token, "POST", `${owner.jobId}/quotes`, { start: 2.5, end: 6 })).status).toBe(404);
  expect((await call(other.token, "PATCH", `${owner.jobId}/quotes/${quote.id}`, { note: "x" })).status).toBe(404);
  expect((await call(other.token, "DELETE", `${owner.jobId}/quotes/${quote.id}`)).status).toBe(404);
  // The other user's own job does not reach the owner's quote either.
  expect((await call(other.token, "PATCH", `${other.jobId}/quotes/${quote.id}`, { note: "x" })).status).toBe(404);
  expect((await call(other.token, "GET", `${owner.jobId}/export?format=md&text=quotes`)).status).toBe(404);
  expect((await call(owner.token, "PATCH", `${owner.jobId}/quotes/not-a-uuid`, { note: "x" })).status).toBe(404);

  for (const body of [
    { start: 6, end: 2.5 },
    { start: 3, end: 3 },
    { start: 2, end: 13 },
    { start: 9, end: 11 },
    { start: 0, end: 5, note: "x".repeat(2001) },
    { start: "a", end: 5 },
  ]) {
    const res = await call(owner.token, "POST", `${owner.jobId}/quotes`, body);
    expect([res.status, JSON.stringify(body)]).toEqual([400, JSON.stringify(body)]);
    expect((await res.json()).error.code).toBe("VALIDATION_FAILED");
  }
  const none = await userWithJob({ segments: [], transcription: null, status: "transcribing" });
  expect((await call(none.token, "POST", `${none.jobId}/quotes`, { start: 0, end: 1 })).status).toBe(409);
});

it("follows an edit of its words: the current text, stale with the saved one, until accepted", async () => {
  const { token, jobId } = await userWithJob();
  const quote = await (await call(token, "POST", `${jobId}/quotes`, { start: 2.5, end: 6 })).json();
  const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  const edit = await fetch(`${t.url}/api/transcriptions/${jobId}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ version: job.version, segments: [{ index: 1, text: "It started in a small garage." }] }),
  });
  expect(edit.status).toBe(200);
  const [now] = (await (await call(token, "GET", `${jobId}/quotes`)).json()).quotes;
  expect(now).toMatchObject({
    id: quote.id,
    text: "It started in a small garage.",
    stale: true,
    savedText: "It started in a garage.",
  });
  const md = await (await call(token, "GET", `${jobId}/export?format=md&text=quotes`)).text();
  expect(md).toContain('"It started in a small garage." — Dr. Tanaka [00:02]');
  const accepted = await (await call(token, "PATCH", `${jobId}/quotes/${quote.id}`, { accept: true })).json();
  expect(accepted).toMatchObject({ text: "It started in a small garage.", stale: false, savedText: null });
});

it("exports the quotes as Markdown, TXT and DOCX with [mm:ss] and the speaker's name", async () => {
  const { token, jobId } = await userWithJob();
  await call(token, "POST", `${jobId}/quotes`, { start: 2.5, end: 6, note: "Opening line", tags: ["origin"] });
  await call(token, "POST", `${jobId}/quotes`, { start: 7.5, end: 8.25 });
  const md = await call(token, "GET", `${jobId}/export?format=md&text=quotes`);
  expect(md.status).toBe(200);
  expect(md.headers.get("content-disposition")).toContain(
    `filename*=UTF-8''${encodeURIComponent("Interview mit Anna – quotes.md")}`,
  );
  expect(await md.text()).toBe(
    '# Interview mit Anna.mp3\n\n> "It started in a garage." — Dr. Tanaka [00:02]\n\nOpening line\n\n`origin`\n\n> "Yes." — Dr. Tanaka [00:07]\n',
  );
  const txt = await call(token, "GET", `${jobId}/export?format=txt&text=quotes`);
  expect(await txt.text()).toBe(
    '"It started in a garage." — Dr. Tanaka [00:02]\nOpening line\n#origin\n\n"Yes." — Dr. Tanaka [00:07]\n',
  );
  const docx = await call(token, "GET", `${jobId}/export?format=docx&text=quotes`);
  expect(docx.status).toBe(200);
  const { value } = await mammoth.extractRawText({ buffer: Buffer.from(await docx.arrayBuffer()) });
  expect(value).toContain('"It started in a garage." — Dr. Tanaka [00:02]');
  expect(value).toContain("Opening line");
  expect((await call(token, "GET", `${jobId}/export?format=srt&text=quotes`)).status).toBe(400);
  const json = await (await call(token, "GET", `${jobId}/export?format=json&text=quotes`)).json();
  expect(json.quotes).toHaveLength(2);
});

it("names an unnamed speaker as the exports do, in the job's interface language", async () => {
  const { token, jobId } = await userWithJob({ speakers: [], language: "de" });
  const quote = await (await call(token, "POST", `${jobId}/quotes`, { start: 7.5, end: 8.25 })).json();
  expect(quote.speaker).toBe("Sprecher 2");
});

it("keeps at most the per-job number of quotes (409 QUOTE_LIMIT_REACHED)", async () => {
  const { uid, jobId } = await userWithJob();
  const service: QuoteService = createQuoteService({ db: t.db, maxPerJob: 2 });
  await service.create(uid, jobId, { start: 0.5, end: 2 });
  await service.create(uid, jobId, { start: 2.5, end: 6 });
  await expect(service.create(uid, jobId, { start: 6.2, end: 7 })).rejects.toMatchObject({
    code: "QUOTE_LIMIT_REACHED",
  });
});
