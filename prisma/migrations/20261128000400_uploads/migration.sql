-- Resumable (tus) uploads: each row is one upload in progress, its bytes stored as part objects under
-- users/{uid}/uploads/{id}/ until the last byte is in and it becomes a transcription job. The
-- retention sweep removes a row and its parts a day after its last PATCH; deleting the account
-- removes its rows.
CREATE TABLE "uploads" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "upload_length" BIGINT NOT NULL,
    "upload_offset" BIGINT NOT NULL DEFAULT 0,
    "metadata" JSONB NOT NULL,
    "parts" JSONB NOT NULL DEFAULT '[]',
    "finishing_at" TIMESTAMPTZ(3),
    "job_id" UUID,
    "error_code" VARCHAR(64),
    "error_message" VARCHAR(1000),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_activity_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "uploads_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "uploads_user_id_idx" ON "uploads"("user_id");
CREATE INDEX "uploads_last_activity_at_idx" ON "uploads"("last_activity_at");
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_user_id_fkey"
    FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
