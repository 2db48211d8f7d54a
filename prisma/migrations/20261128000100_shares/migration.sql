-- Read-only share links of a transcription: the owner makes, lists and revokes them; anyone with the
-- link reads the job without logging in until it expires or is revoked. Only the SHA-256 of the token
-- is kept. Deleting the job or the account removes its links.
CREATE TABLE "transcript_shares" (
    "id" UUID NOT NULL,
    "job_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "include_audio" BOOLEAN NOT NULL DEFAULT false,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "last_opened_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "transcript_shares_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "transcript_shares_token_hash_key" ON "transcript_shares"("token_hash");
CREATE INDEX "transcript_shares_job_id_created_at_idx" ON "transcript_shares"("job_id", "created_at");
CREATE INDEX "transcript_shares_user_id_idx" ON "transcript_shares"("user_id");
ALTER TABLE "transcript_shares" ADD CONSTRAINT "transcript_shares_job_id_fkey"
    FOREIGN KEY ("job_id") REFERENCES "transcription_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "transcript_shares" ADD CONSTRAINT "transcript_shares_user_id_fkey"
    FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
