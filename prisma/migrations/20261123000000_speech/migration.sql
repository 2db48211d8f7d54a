-- Speech recognition that hears every language: the audio language asked for and the one
-- detected, timed segments per chunk and per job, and which chunks' live text has gone out.
ALTER TABLE "transcription_jobs"
    ADD COLUMN "audio_language" VARCHAR(8) NOT NULL DEFAULT 'auto',
    ADD COLUMN "detected_language" VARCHAR(8),
    ADD COLUMN "segments" JSONB;

-- Jobs made before this change were transcribed in their interface language.
UPDATE "transcription_jobs" SET "audio_language" = "language";

ALTER TABLE "transcript_chunks"
    ADD COLUMN "segments" JSONB,
    ADD COLUMN "published_at" TIMESTAMPTZ(3);

-- The speech spans (voice activity detection) inside each chunk: text over non-speech is dropped.
ALTER TABLE "transcript_chunks" ADD COLUMN "speech" JSONB;
