-- Quotes saved from a job's transcript (POST /api/transcriptions/{id}/quotes): a time range, the text
-- and the speaker's name as saved, a note and tags. The text shown is cut again from the job's
-- current segments when read (a quote follows edits; `text` keeps what was saved, to tell a changed
-- quote). Deleting the job or the account removes its quotes.
CREATE TABLE "transcript_quotes" (
    "id" UUID NOT NULL,
    "job_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "start_seconds" DOUBLE PRECISION NOT NULL,
    "end_seconds" DOUBLE PRECISION NOT NULL,
    "text" TEXT NOT NULL,
    "speaker" VARCHAR(100),
    "note" TEXT,
    "tags" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "transcript_quotes_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "transcript_quotes_job_id_start_seconds_idx" ON "transcript_quotes"("job_id", "start_seconds");
CREATE INDEX "transcript_quotes_user_id_idx" ON "transcript_quotes"("user_id");
ALTER TABLE "transcript_quotes" ADD CONSTRAINT "transcript_quotes_job_id_fkey"
    FOREIGN KEY ("job_id") REFERENCES "transcription_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "transcript_quotes" ADD CONSTRAINT "transcript_quotes_user_id_fkey"
    FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
