/**
 * `npm run bench:search [-- jobs chars]`: the library's search (services/gateway/src/jobs/search.ts)
 * on a throw-away database: one user with `jobs` transcriptions (default 1,000) of about `chars`
 * characters each (default 30,000, about 35 minutes of speech), half English and half Japanese, among
 * other users' jobs. Prints, per query, the median time of 5 runs, the matches, and whether the
 * planner used the search indexes. Needs PostgreSQL (DATABASE_URL, default 127.0.0.1:5432).
 */
import { randomUUID } from "node:crypto";
import os from "node:os";

import { Prisma } from "@kikitori/shared/db";
import { SEARCH_OPERATOR_COST, searchJobs } from "../services/gateway/src/jobs/search.ts";
import { createTestDatabase, insertVerifiedUser } from "../tests/support/db.ts";

const JOBS = Number(process.argv[2] ?? 1000);
const CHARS = Number(process.argv[3] ?? 30_000);
const OTHERS = 1000;

const EN = "we opened the bakery in the old town and the flour came from farms near the river every morning ".split(
  " ",
);
const JA = [
  "大阪で",
  "パン屋を",
  "始めました。",
  "小麦粉は",
  "北海道の",
  "農家から",
  "毎朝",
  "届きます。",
  "お客さんは",
  "近所の人です。",
];
// mulberry32: a small seeded generator, so every run loads the same texts.
let seed = 7;
const rand = (n: number) => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((((x ^ (x >>> 14)) >>> 0) / 4294967296) * n) | 0;
};
function text(japanese: boolean, marker: string | null): string {
  const parts: string[] = [];
  let len = 0;
  while (len < CHARS) {
    const w = japanese ? JA[rand(JA.length)] : EN[rand(EN.length)];
    parts.push(w);
    len += w.length + (japanese ? 0 : 1);
  }
  if (marker) parts.splice(rand(parts.length), 0, marker);
  return parts.join(japanese ? "" : " ");
}

const db = await createTestDatabase();
try {
  const { uid } = await insertVerifiedUser(db.db);
  const other = await insertVerifiedUser(db.db);
  const rows = (userId: string, n: number, markers: boolean) =>
    Array.from({ length: n }, (_, i) => {
      const japanese = i % 2 === 1;
      // 1 job in 100 holds the rare words searched for below.
      const marker = markers && i % 100 < 2 ? (japanese ? "信楽焼" : "sourdough") : null;
      const raw = text(japanese, marker);
      const id = randomUUID();
      return {
        id,
        userId,
        correlationId: "bench",
        audioKey: `users/${userId}/audio/${id}.mp3`,
        audioMime: "audio/mpeg",
        audioFormat: "mp3",
        audioBytes: 1,
        durationSeconds: CHARS / 14,
        originalName: `interview-${i}.mp3`,
        model: "general",
        language: japanese ? "ja" : "en",
        status: "completed" as const,
        transcription: raw,
        rewrittenText: raw,
        audioExpiresAt: new Date(Date.now() + 86_400_000),
      };
    });
  const t0 = performance.now();
  for (const [userId, n, markers] of [
    [uid, JOBS, true],
    [other.uid, OTHERS, false],
  ] as const) {
    const all = rows(userId, n, markers);
    for (let i = 0; i < all.length; i += 100) await db.db.transcriptionJob.createMany({ data: all.slice(i, i + 100) });
  }
  await db.db.$executeRawUnsafe("ANALYZE transcription_jobs");
  const size = await db.db.$queryRawUnsafe<Array<{ table: string; indexes: string }>>(
    `SELECT pg_size_pretty(pg_total_relation_size('transcription_jobs')) AS "table",
            pg_size_pretty(pg_indexes_size('transcription_jobs')) AS indexes`,
  );
  console.log(
    `${JOBS} jobs of ~${CHARS} characters for the user (+${OTHERS} of another user), loaded and indexed in ${(
      (performance.now() - t0) / 1000
    ).toFixed(1)} s; table ${size[0].table}, indexes ${size[0].indexes}; ${os.cpus().length} CPUs, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );

  const plan = async (q: string) => {
    const doc = `(coalesce("title", '') || ' ' || "original_name" || ' ' || coalesce("transcription", '') || ' ' || coalesce("rewritten_text", ''))`;
    const [, lines] = await db.db.$transaction([
      db.db.$executeRawUnsafe(`SET LOCAL cpu_operator_cost = ${SEARCH_OPERATOR_COST}`),
      db.db.$queryRaw<Array<{ "QUERY PLAN": string }>>(
        Prisma.sql`EXPLAIN SELECT id FROM transcription_jobs WHERE user_id = ${uid}::uuid AND (search_vector @@ websearch_to_tsquery('simple'::regconfig, ${q}) OR ${Prisma.raw(doc)} ILIKE ${`%${q}%`})`,
      ),
    ]);
    const text = lines.map((l) => l["QUERY PLAN"]).join("\n");
    return ["search_fts", "search_trgm"].filter((ix) => text.includes(ix)).join("+") || "no (scan)";
  };
  console.log("query                 | median ms | min ms | matches | search indexes used");
  for (const q of ["sourdough", "信楽焼", "bakery", "パン屋", "zebra", "farms near the river"]) {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < 5; i++) {
      const s = performance.now();
      total = (await searchJobs(db.db, { userId: uid, q, page: 1, limit: 20 })).total;
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    console.log(
      `${q.padEnd(21)} | ${times[2].toFixed(1).padStart(9)} | ${times[0].toFixed(1).padStart(6)} | ${String(total).padStart(7)} | ${await plan(q)}`,
    );
  }
} finally {
  if (process.env.KEEP_DB) console.log(`kept: ${db.url}`);
  else await db.drop();
}
