/**
 * The library's search and sort (GET /api/transcriptions). A job matches `q` when PostgreSQL's full-text
 * search finds its words (the 'simple' configuration: no stemming, any language) or when the text holds
 * `q` as a substring, case-insensitively (words inside Japanese or Chinese text, which has no spaces,
 * and parts of words). Both run over one expression, which the migration 20261126000000_workspace
 * indexes twice (GIN tsvector, GIN pg_trgm): SEARCH_DOCUMENT must stay the same text as there.
 */
import type { LibrarySort } from "@kikitori/shared";
import { type Db, Prisma } from "@kikitori/shared/db";

const SEARCH_DOCUMENT = Prisma.raw(
  `(coalesce("title", '') || ' ' || "original_name" || ' ' || coalesce("transcription", '') || ' ' || coalesce("rewritten_text", ''))`,
);
const FTS_DOCUMENT = Prisma.sql`to_tsvector('simple'::regconfig, ${SEARCH_DOCUMENT})`;

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
  const [rows, counted] = await Promise.all([
    db.$queryRaw<Array<{ id: string }>>(
      Prisma.sql`SELECT "id" FROM "transcription_jobs" ${where} ORDER BY ${orderBy(sort, q)}
        LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    ),
    db.$queryRaw<Array<{ n: bigint }>>(Prisma.sql`SELECT count(*) AS n FROM "transcription_jobs" ${where}`),
  ]);
  return { ids: rows.map((r) => r.id), total: Number(counted[0]?.n ?? 0) };
}
