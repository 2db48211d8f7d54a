/**
 * The library's search and sort (GET /api/transcriptions), a part of the jobs repository. A job
 * matches `q` when PostgreSQL's full-text search finds its words (the 'simple' configuration: no
 * stemming, any language; the stored column "search_vector") or when its text holds `q` as a substring, case-insensitively (words inside
 * Japanese or Chinese text, which has no spaces, and parts of words). Both cover title, file name and
 * both texts; the migration 20261126000000_workspace indexes them (GIN on the vector, GIN pg_trgm on
 * SEARCH_DOCUMENT, which must stay the same text as there).
 */
import type { LibrarySort } from "@kikitori/shared";
import { type Db, Prisma } from "@kikitori/shared/db";

const SEARCH_DOCUMENT = Prisma.raw(
  `(coalesce("title", '') || ' ' || "original_name" || ' ' || coalesce("transcription", '') || ' ' || coalesce("rewritten_text", ''))`,
);
const FTS_DOCUMENT = Prisma.raw(`"search_vector"`);

/** cpu_operator_cost during a search with `q` (PostgreSQL's default is 0.0025); see searchJobs. */
export const SEARCH_OPERATOR_COST = 5;

/** `q` as an ILIKE pattern that matches it literally anywhere (%, _ and \ escaped). */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function orderBy(sort: LibrarySort, q: string | undefined): Prisma.Sql {
  switch (sort) {
    case "oldest":
      return Prisma.sql`"created_at" ASC, "id" ASC`;
    case "title":
      return Prisma.sql`lower(coalesce("title", "original_name")) ASC, "created_at" DESC, "id" ASC`;
    case "longest":
      return Prisma.sql`"duration_seconds" DESC, "created_at" DESC, "id" ASC`;
    case "relevance":
      if (q) {
        // Title hits first, then full-text rank, then the newest.
        return Prisma.sql`(coalesce("title", "original_name") ILIKE ${likePattern(q)}) DESC,
          ts_rank(${FTS_DOCUMENT}, websearch_to_tsquery('simple'::regconfig, ${q})) DESC,
          "created_at" DESC, "id" ASC`;
      }
      return Prisma.sql`"created_at" DESC, "id" ASC`;
    default:
      return Prisma.sql`"created_at" DESC, "id" ASC`;
  }
}

/** One page of the user's job ids in the asked order, and how many jobs match in all. */
export async function searchJobs(
  db: Db,
  opts: { userId: string; q?: string; sort?: LibrarySort; page: number; limit: number },
): Promise<{ ids: string[]; total: number }> {
  const { userId, q, page, limit } = opts;
  const sort = opts.sort ?? (q ? "relevance" : "newest");
  const match = q
    ? Prisma.sql`AND (${FTS_DOCUMENT} @@ websearch_to_tsquery('simple'::regconfig, ${q})
        OR ${SEARCH_DOCUMENT} ILIKE ${likePattern(q)})`
    : Prisma.empty;
  const where = Prisma.sql`WHERE "user_id" = ${userId}::uuid ${match}`;
  const pageSql = Prisma.sql`SELECT "id" FROM "transcription_jobs" ${where} ORDER BY ${orderBy(sort, q)}
        LIMIT ${limit} OFFSET ${(page - 1) * limit}`;
  const countSql = Prisma.sql`SELECT count(*) AS n FROM "transcription_jobs" ${where}`;
  const [rows, counted] = q
    ? await db
        .$transaction([
          // The text conditions read each row's texts (tens of KB, stored out of line), which the
          // planner does not cost: it would read all the user's rows rather than narrow them in the
          // GIN indexes (1,000 long jobs: 0.7 s against a few ms, `npm run bench:search`). Costing
          // operators higher for this search makes it narrow first.
          db.$executeRawUnsafe(`SET LOCAL cpu_operator_cost = ${SEARCH_OPERATOR_COST}`),
          db.$queryRaw<Array<{ id: string }>>(pageSql),
          db.$queryRaw<Array<{ n: bigint }>>(countSql),
        ])
        .then(([, r, c]) => [r, c] as const)
    : await Promise.all([db.$queryRaw<Array<{ id: string }>>(pageSql), db.$queryRaw<Array<{ n: bigint }>>(countSql)]);
  return { ids: rows.map((r) => r.id), total: Number(counted[0]?.n ?? 0) };
}
