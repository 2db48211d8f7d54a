// The correction's sections as resumable steps on a real database (correction_sections): a section
// is stored once, a re-run takes it instead of correcting it again, and of two runs storing one
// section at once the first text stays.
import type { Db } from "@kikitori/shared/db";
import { createTestDatabase, insertJob, insertVerifiedUser } from "../../../tests/support/db.ts";
import { OfflineCorrectionEngine } from "../src/correction/offline.ts";
import type { CorrectionInput } from "../src/correction/port.ts";
import { correctionSections } from "../src/handlers/correct.ts";
import { fixture } from "./fixtures/correction-transcripts.ts";

let db: Db;
let drop: () => Promise<void>;
let uid: string;
beforeAll(async () => {
  ({ db, drop } = await createTestDatabase());
  ({ uid } = await insertVerifiedUser(db));
});
afterAll(async () => drop?.());

const input: CorrectionInput = {
  transcript: fixture("interview"),
  language: "en",
  interviewer: "Sarah",
  interviewee: "Tom",
  tone: null,
  interviewExample: "",
  fileType: "meeting",
};

it("keeps the first text stored for a section and counts the sections found or stored", async () => {
  const jobId = await insertJob(db, uid, { status: "correcting" });
  const store = correctionSections(db, jobId);
  expect(await store.get(0)).toBeUndefined();
  expect(store.count).toBe(0);
  expect(await store.put(0, "Sarah: First.")).toBe("Sarah: First.");
  expect(await correctionSections(db, jobId).put(0, "Sarah: Second.")).toBe("Sarah: First.");
  expect(store.count).toBe(1);
  const again = correctionSections(db, jobId);
  expect(await again.get(0)).toBe("Sarah: First.");
  expect(await again.get(1)).toBeUndefined();
  expect(again.count).toBe(1);
});

it("a correction stopped halfway and run again corrects only the sections not stored, to the same text", async () => {
  const engine = new OfflineCorrectionEngine({ sectionChars: 400 });
  const full = await engine.correct(input);
  expect(full.sections.length).toBeGreaterThan(3);
  const jobId = await insertJob(db, uid, { status: "correcting" });
  const stop = new AbortController();
  await expect(
    engine.correct(input, {
      steps: correctionSections(db, jobId),
      stop: stop.signal,
      onSection: (index) => {
        if (index === 1) stop.abort();
      },
    }),
  ).rejects.toMatchObject({ name: "StoppedAtBoundary" });
  const stored = await db.correctionSection.findMany({ where: { jobId }, orderBy: { index: "asc" } });
  expect(stored.map((s) => s.text)).toEqual(full.sections.slice(0, 2));
  const redone: number[] = [];
  const resumed = await engine.correct(input, {
    steps: correctionSections(db, jobId),
    onSection: (index) => void redone.push(index),
  });
  expect(redone).toEqual([...Array(full.sections.length).keys()].slice(2));
  expect(resumed.text).toBe(full.text);
  expect(await db.correctionSection.count({ where: { jobId } })).toBe(full.sections.length);
});
