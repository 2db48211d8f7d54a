-- CreateEnum
CREATE TYPE "JobStatus" AS ENUM ('queued', 'transcribing', 'correcting', 'completed', 'failed');

-- CreateEnum
CREATE TYPE "TextRunKind" AS ENUM ('summary', 'titles');

-- CreateTable
CREATE TABLE "transcription_jobs" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "status" "JobStatus" NOT NULL DEFAULT 'queued',
    "correlation_id" VARCHAR(128) NOT NULL,
    "audio_key" VARCHAR(512) NOT NULL,
    "audio_mime" VARCHAR(64) NOT NULL,
    "audio_format" VARCHAR(16) NOT NULL,
    "audio_bytes" INTEGER NOT NULL,
    "duration_seconds" DOUBLE PRECISION NOT NULL,
    "original_name" VARCHAR(255) NOT NULL,
    "model" VARCHAR(32) NOT NULL,
    "interviewer" VARCHAR(100) NOT NULL DEFAULT '',
    "interviewee" VARCHAR(100) NOT NULL DEFAULT '',
    "tone" VARCHAR(16),
    "interview_example" VARCHAR(300) NOT NULL DEFAULT '',
    "language" VARCHAR(8) NOT NULL DEFAULT 'en',
    "transcription_progress" SMALLINT NOT NULL DEFAULT 0,
    "correction_progress" SMALLINT NOT NULL DEFAULT 0,
    "chunk_count" INTEGER NOT NULL DEFAULT 0,
    "transcription" TEXT,
    "rewritten_text" TEXT,
    "transcription_time" DOUBLE PRECISION,
    "correction_time" DOUBLE PRECISION,
    "transcription_engine" VARCHAR(64),
    "correction_engine" VARCHAR(64),
    "error_code" VARCHAR(64),
    "error_message" TEXT,
    "failed_stage" VARCHAR(16),
    "audio_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "audio_deleted_at" TIMESTAMPTZ(3),
    "transcription_started_at" TIMESTAMPTZ(3),
    "transcription_done_at" TIMESTAMPTZ(3),
    "correction_started_at" TIMESTAMPTZ(3),
    "correction_done_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "transcription_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transcript_chunks" (
    "job_id" UUID NOT NULL,
    "index" INTEGER NOT NULL,
    "start_seconds" DOUBLE PRECISION NOT NULL,
    "end_seconds" DOUBLE PRECISION NOT NULL,
    "object_key" VARCHAR(512) NOT NULL,
    "text" TEXT,
    "engine_seconds" DOUBLE PRECISION,
    "done_at" TIMESTAMPTZ(3),

    CONSTRAINT "transcript_chunks_pkey" PRIMARY KEY ("job_id","index")
);

-- CreateTable
CREATE TABLE "correction_sections" (
    "job_id" UUID NOT NULL,
    "index" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "done_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "correction_sections_pkey" PRIMARY KEY ("job_id","index")
);

-- CreateTable
CREATE TABLE "text_runs" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "kind" "TextRunKind" NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'running',
    "input_chars" INTEGER NOT NULL,
    "result" JSONB,
    "error_code" VARCHAR(64),
    "engine" VARCHAR(64),
    "duration_ms" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "text_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "transcription_jobs_user_id_created_at_idx" ON "transcription_jobs"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "transcription_jobs_audio_expires_at_idx" ON "transcription_jobs"("audio_expires_at");

-- CreateIndex
CREATE INDEX "text_runs_user_id_created_at_idx" ON "text_runs"("user_id", "created_at");

-- AddForeignKey
ALTER TABLE "transcription_jobs" ADD CONSTRAINT "transcription_jobs_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transcript_chunks" ADD CONSTRAINT "transcript_chunks_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "transcription_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "correction_sections" ADD CONSTRAINT "correction_sections_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "transcription_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "text_runs" ADD CONSTRAINT "text_runs_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
