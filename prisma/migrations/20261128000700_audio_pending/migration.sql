-- An accepted upload is answered once its job row holds the minutes; the recording reaches the object
-- store just after, from the gateway's disk. Until it does the job is queued but not yet in the queue:
-- `audio_pending`. Every job before this change had its audio stored before it was recorded.
ALTER TABLE "transcription_jobs" ADD COLUMN "audio_pending" BOOLEAN NOT NULL DEFAULT false;
-- The retention schedule looks for recordings that never reached the store.
CREATE INDEX "transcription_jobs_audio_pending_created_at_idx" ON "transcription_jobs" ("audio_pending", "created_at");
