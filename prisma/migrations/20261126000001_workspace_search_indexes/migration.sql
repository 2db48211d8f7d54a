-- kikitori:no-transaction
-- The library's two GIN search indexes (see 20261126000000_workspace), built CONCURRENTLY: writes to
-- transcription_jobs go on while they are built. Outside a transaction (the marker above), one
-- statement at a time; re-runnable (IF NOT EXISTS; the runner drops an index a cut build left INVALID).
-- services/gateway/src/workspace/search.ts repeats the trigram expression word for word.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "transcription_jobs_search_fts" ON "transcription_jobs" USING GIN ("user_id", "search_vector");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "transcription_jobs_search_trgm" ON "transcription_jobs" USING GIN (
    "user_id",
    (coalesce("title", '') || ' ' || "original_name" || ' ' || coalesce("transcription", '') || ' ' || coalesce("rewritten_text", '')) gin_trgm_ops
);
