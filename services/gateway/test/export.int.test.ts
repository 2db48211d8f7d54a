// Exports of a finished job (GET /api/transcriptions/{jobId}/export): every format, with speakers and
// timestamps where the format has them, in any language; the DOCX opens in a reader library and the
// subtitles parse with a subtitle parser.
import mammoth from "mammoth";
import { parseSync } from "subtitle";
import { userWithInterview } from "../../../tests/support/db.ts";
import { startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

const userWithJob = (over: Record<string, unknown> = {}) => userWithInterview(t, over);

const get = (token: string, jobId: string, query: string) =>
  fetch(`${t.url}/api/transcriptions/${jobId}/export?${query}`, { headers: { authorization: `Bearer ${token}` } });

it("exports the timed transcript with speakers as TXT, Markdown, SRT, WebVTT and JSON", async () => {
  const { token, jobId } = await userWithJob();
  const txt = await get(token, jobId, "format=txt");
  expect(txt.status).toBe(200);
  expect(txt.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  expect(txt.headers.get("content-disposition")).toContain(
    `filename*=UTF-8''${encodeURIComponent("Interview mit Anna – transcript.txt")}`,
  );
  expect(await txt.text()).toBe(
    "[00:00] Anna: So how did it start?\n\n[00:02] Dr. Tanaka: It started in a garage.\n\n[00:06] Anna: Really?\n\n[00:07] Dr. Tanaka: Yes.\n",
  );
  expect(await (await get(token, jobId, "format=md")).text()).toContain(
    "**[00:02] Dr. Tanaka:** It started in a garage.",
  );

  const srt = parseSync(await (await get(token, jobId, "format=srt")).text()).filter((n) => n.type === "cue");
  expect(srt.map((n) => (n.data as { text: string }).text)).toEqual([
    "Anna: So how did it start?",
    "Dr. Tanaka: It started in a garage.",
    "Anna: Really?",
    "Dr. Tanaka: Yes.",
  ]);
  expect(srt.map((n) => [(n.data as { start: number }).start, (n.data as { end: number }).end])).toEqual([
    [500, 2000],
    [2500, 6000],
    [6200, 7000],
    [7500, 8250],
  ]);
  const vttText = await (await get(token, jobId, "format=vtt")).text();
  expect(vttText.startsWith("WEBVTT\n")).toBe(true);
  const vtt = parseSync(vttText).filter((n) => n.type === "cue");
  expect((vtt[1].data as { text: string }).text).toBe("<v Dr. Tanaka>It started in a garage.");

  const json = await (await get(token, jobId, "format=json")).json();
  expect(json.speakers).toHaveLength(2);
  expect(json.segments[1]).toMatchObject({ speaker: 1, speakerName: "Dr. Tanaka", start: 2.5 });
});

it("exports the interview text, as DOCX too, which a reader library opens with the same text", async () => {
  const { token, jobId } = await userWithJob();
  const md = await get(token, jobId, "format=txt&text=interview");
  expect(md.headers.get("content-disposition")).toContain("Interview%20mit%20Anna%20%E2%80%93%20interview.txt");
  expect(await md.text()).toBe(
    "Anna: So how did it start?\n\nDr. Tanaka: It started in a garage.\n\nAnna: Really?\n\nDr. Tanaka: Yes.\n",
  );
  const docx = await get(token, jobId, "format=docx&text=interview");
  expect(docx.headers.get("content-type")).toContain("wordprocessingml");
  const { value } = await mammoth.extractRawText({ buffer: Buffer.from(await docx.arrayBuffer()) });
  expect(value.split(/\n+/).filter(Boolean)).toEqual([
    "Interview mit Anna.mp3",
    "Anna: So how did it start?",
    "Dr. Tanaka: It started in a garage.",
    "Anna: Really?",
    "Dr. Tanaka: Yes.",
  ]);
  const timed = await mammoth.extractRawText({
    buffer: Buffer.from(await (await get(token, jobId, "format=docx")).arrayBuffer()),
  });
  expect(timed.value).toContain("[00:00:02] Dr. Tanaka: It started in a garage.");
});

it("keeps every language intact: Japanese without spaces, Arabic right to left in DOCX", async () => {
  const ja = await userWithJob({
    originalName: "取材.m4a",
    audioLanguage: "ja",
    segments: [
      { start: 0, end: 2, text: "始めたきっかけは？", speaker: 0 },
      { start: 2, end: 4, text: "ガレージでした。", speaker: 1 },
      { start: 4, end: 5, text: "友達と二人で。", speaker: 1 },
    ],
    speakers: [],
  });
  const txt = await (await get(ja.token, ja.jobId, "format=txt")).text();
  expect(txt).toBe("[00:00] Speaker 1: 始めたきっかけは？\n\n[00:02] Speaker 2: ガレージでした。友達と二人で。\n");
  const ar = await userWithJob({
    originalName: "مقابلة.mp3",
    audioLanguage: "ar",
    rewrittenText: "المحاور: كيف بدأت؟",
  });
  const docx = Buffer.from(await (await get(ar.token, ar.jobId, "format=docx&text=interview")).arrayBuffer());
  const { value } = await mammoth.extractRawText({ buffer: docx });
  expect(value).toContain("المحاور: كيف بدأت؟");
  // The paragraphs are marked right to left (w:bidi) in the document XML.
  const { default: JSZip } = await import("jszip");
  const xml = await (await JSZip.loadAsync(docx)).file("word/document.xml")?.async("string");
  expect(xml).toContain("<w:bidi");
});

it("answers bad requests clearly: unknown format, text not written yet, someone else's job", async () => {
  const { token, jobId } = await userWithJob({ rewrittenText: null, status: "correcting" });
  expect((await get(token, jobId, "format=pdf")).status).toBe(400);
  const notYet = await get(token, jobId, "format=txt&text=interview");
  expect(notYet.status).toBe(409);
  expect((await notYet.json()).error.code).toBe("JOB_NOT_READY");
  const other = await userWithJob();
  expect((await get(other.token, jobId, "format=txt")).status).toBe(404);
  expect((await fetch(`${t.url}/api/transcriptions/${jobId}/export?format=txt`)).status).toBe(401);
});

it("answers 200 in all six formats for a title with an emoji at the cut of the file name", async () => {
  // Character 120 of the name is the high half of the emoji: a cut by code unit would split it.
  const { token, jobId } = await userWithJob({ title: `${"a".repeat(119)}😀 tail` });
  for (const format of ["txt", "md", "docx", "srt", "vtt", "json"]) {
    for (const text of ["transcript", "interview"]) {
      const res = await get(token, jobId, `format=${format}&text=${text}`);
      expect([format, text, res.status]).toEqual([format, text, 200]);
      const disposition = res.headers.get("content-disposition") ?? "";
      expect(disposition).toContain(`filename*=UTF-8''${"a".repeat(119)}${encodeURIComponent("😀")}`);
      await res.arrayBuffer();
    }
  }
});
