-- Who said what: the speaker count asked for at upload, the diarization's speaker spans
-- and engine, and the named speakers of the written interview (renamable).
ALTER TABLE "transcription_jobs"
    ADD COLUMN "speaker_count" SMALLINT,
    ADD COLUMN "speaker_spans" JSONB,
    ADD COLUMN "diarization_engine" VARCHAR(64),
    ADD COLUMN "speakers" JSONB;
