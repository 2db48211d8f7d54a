-- The glossary (names and terms spelt the user's way): the account's own list, and the list a job
-- was transcribed and corrected with (the upload's, else the account's at upload time).
-- Both are JSON arrays of strings (at most 500 terms of at most 100 characters, checked by the API).
ALTER TABLE "users" ADD COLUMN "glossary" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "transcription_jobs" ADD COLUMN "glossary" JSONB NOT NULL DEFAULT '[]';
