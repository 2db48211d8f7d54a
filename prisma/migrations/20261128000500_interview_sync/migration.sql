-- The interview text follows the edited transcript: per job, the transcript's units as the interview
-- text was last written from them, the paragraphs written for each, and the open conflicts (turns
-- changed in the transcript whose interview paragraphs the user had edited by hand).
ALTER TABLE "transcription_jobs" ADD COLUMN "interview_sync" JSONB;
