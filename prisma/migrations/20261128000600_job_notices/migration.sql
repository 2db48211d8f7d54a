-- Notices about how a job was processed, shown on its page (codes, e.g. "diarization_fallback" when
-- the neural speaker diarization failed and the classic engine told the voices apart instead).
ALTER TABLE "transcription_jobs" ADD COLUMN "notices" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
