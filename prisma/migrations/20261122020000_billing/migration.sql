-- CreateEnum
CREATE TYPE "PaymentKind" AS ENUM ('upgrade', 'renewal');

-- CreateEnum
CREATE TYPE "PaymentStatus" AS ENUM ('created', 'requires_action', 'succeeded', 'failed', 'canceled', 'refunded');

-- CreateTable
CREATE TABLE "subscriptions" (
    "user_id" UUID NOT NULL,
    "provider" VARCHAR(16) NOT NULL,
    "currency" VARCHAR(3) NOT NULL,
    "customer_id" VARCHAR(255),
    "payment_method_id" VARCHAR(255),
    "card_brand" VARCHAR(32),
    "card_last4" VARCHAR(4),
    "paid_until" TIMESTAMPTZ(3),
    "last_failure_code" VARCHAR(64),
    "last_failure_reason" VARCHAR(500),
    "last_failure_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "payments" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "provider" VARCHAR(16) NOT NULL,
    "kind" "PaymentKind" NOT NULL,
    "status" "PaymentStatus" NOT NULL DEFAULT 'created',
    "from_plan" "Plan" NOT NULL,
    "plan" "Plan" NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" VARCHAR(3) NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "attempt_key" VARCHAR(200) NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "idempotency_key" VARCHAR(200) NOT NULL,
    "payment_method_id" VARCHAR(255),
    "card_brand" VARCHAR(32),
    "card_last4" VARCHAR(4),
    "intent_id" VARCHAR(255),
    "client_secret" VARCHAR(255),
    "failure_code" VARCHAR(64),
    "failure_message" VARCHAR(500),
    "applied_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "processed_webhook_events" (
    "id" VARCHAR(255) NOT NULL,
    "provider" VARCHAR(16) NOT NULL,
    "type" VARCHAR(100) NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "subscriptions_paid_until_idx" ON "subscriptions"("paid_until");

-- CreateIndex
CREATE UNIQUE INDEX "payments_idempotency_key_key" ON "payments"("idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "payments_intent_id_key" ON "payments"("intent_id");

-- CreateIndex
CREATE UNIQUE INDEX "payments_client_secret_key" ON "payments"("client_secret");

-- CreateIndex
CREATE INDEX "payments_user_id_created_at_idx" ON "payments"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "payments_attempt_key_idx" ON "payments"("attempt_key");

-- CreateIndex
CREATE INDEX "payments_status_created_at_idx" ON "payments"("status", "created_at");

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
