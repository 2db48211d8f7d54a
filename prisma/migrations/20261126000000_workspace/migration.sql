-- The interview workspace: a title (the file name until renamed), a version number that
-- every edit raises (a write based on an older version is refused), the versions kept per job (the
-- original AI output first), and the library's search indexes.
ALTER TABLE "transcription_jobs"
    ADD COLUMN "title" VARCHAR(255),
    ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1,
    ADD COLUMN "edited_at" TIMESTAMPTZ(3);

CREATE TABLE "transcript_versions" (
    "id" UUID NOT NULL,
    "job_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "restored_from" INTEGER,
    "title" VARCHAR(255),
    "transcription" TEXT,
    "segments" JSONB,
    "rewritten_text" TEXT,
    "speakers" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "transcript_versions_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "transcript_versions_job_id_version_key" ON "transcript_versions"("job_id", "version");
ALTER TABLE "transcript_versions" ADD CONSTRAINT "transcript_versions_job_id_fkey"
    FOREIGN KEY ("job_id") REFERENCES "transcription_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Search (GET /api/transcriptions?q=): full-text search over title, file name and both texts with the
-- 'simple' configuration (no stemming, so it treats every language alike), kept in a column
-- (computing to_tsvector per row at query time costs seconds over a large library), plus trigram
-- matching (pg_trgm) of the same text for words inside text without spaces (ja, zh, th).
-- The column is filled by a trigger that fires only when one of those texts is written: a generated
-- column would be computed again on every progress update of a job (about 20 ms for a long one).
-- A search is always one user's: both GIN indexes lead with user_id (btree_gin), so the planner
-- narrows to the user's matching rows inside the index instead of reading every text of the user.
-- services/gateway/src/workspace/search.ts repeats the trigram expression word for word so the
-- planner can use its index. The vector takes the first 400,000 characters (a tsvector holds at most
-- 1 MB). pg_trgm and btree_gin are trusted extensions: the database owner may create them.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;
ALTER TABLE "transcription_jobs" ADD COLUMN "search_vector" TSVECTOR;
CREATE FUNCTION "transcription_jobs_search_vector"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW."search_vector" := to_tsvector('simple'::regconfig, left(
        coalesce(NEW."title", '') || ' ' || NEW."original_name" || ' ' || coalesce(NEW."transcription", '') || ' ' || coalesce(NEW."rewritten_text", ''),
        400000));
    RETURN NEW;
END
$$;
CREATE TRIGGER "transcription_jobs_search_vector"
    BEFORE INSERT OR UPDATE OF "title", "original_name", "transcription", "rewritten_text" ON "transcription_jobs"
    FOR EACH ROW EXECUTE FUNCTION "transcription_jobs_search_vector"();
-- The two GIN search indexes are built by the next migration (20261126000001_workspace_search_indexes)
-- with CREATE INDEX CONCURRENTLY, outside a transaction: built here, they would block every write to
-- transcription_jobs for as long as indexing the whole library takes.
