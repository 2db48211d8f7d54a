-- Media and quota boundaries.
-- audio_stream: the audio stream of the upload (0-based, among its audio streams) that was measured and
-- charged at upload; the worker decodes exactly that one.
-- reserved_seconds: the minutes an accepted upload holds until its transcript is charged (or it fails,
-- or is deleted), so uploads queued one after another cannot spend more than the plan has.
ALTER TABLE "transcription_jobs"
    ADD COLUMN "audio_stream" SMALLINT NOT NULL DEFAULT 0,
    ADD COLUMN "reserved_seconds" INTEGER NOT NULL DEFAULT 0;
-- (Summed per user at each upload through the (user_id, created_at) index.)
