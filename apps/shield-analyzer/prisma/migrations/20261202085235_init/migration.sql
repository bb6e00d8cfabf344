-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "shield_cases" (
    "case_id" UUID NOT NULL,
    "account_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "risk_tier" TEXT NOT NULL,
    "counterparty_reference" TEXT,
    "record" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shield_cases_pkey" PRIMARY KEY ("case_id")
);

-- CreateTable
CREATE TABLE "shield_consultations" (
    "consultation_id" UUID NOT NULL,
    "case_id" UUID NOT NULL,
    "account_id" TEXT NOT NULL,
    "record" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shield_consultations_pkey" PRIMARY KEY ("consultation_id")
);

-- CreateTable
CREATE TABLE "shield_outcomes" (
    "outcome_id" UUID NOT NULL,
    "case_id" UUID NOT NULL,
    "account_id" TEXT NOT NULL,
    "record" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shield_outcomes_pkey" PRIMARY KEY ("outcome_id")
);

-- CreateTable
CREATE TABLE "shield_counterparty_outcomes" (
    "case_id" UUID NOT NULL,
    "account_id" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "result" TEXT NOT NULL,
    "accepted_advice" BOOLEAN NOT NULL,
    "latest_disposition" TEXT,
    "risk_tier" TEXT NOT NULL,
    "closed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shield_counterparty_outcomes_pkey" PRIMARY KEY ("case_id")
);

-- CreateIndex
CREATE INDEX "shield_cases_account_id_updated_at_idx" ON "shield_cases"("account_id", "updated_at");

-- CreateIndex
CREATE INDEX "shield_cases_account_id_agent_id_updated_at_idx" ON "shield_cases"("account_id", "agent_id", "updated_at");

-- CreateIndex
CREATE INDEX "shield_consultations_case_id_created_at_idx" ON "shield_consultations"("case_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "shield_outcomes_case_id_key" ON "shield_outcomes"("case_id");

-- CreateIndex
CREATE INDEX "shield_counterparty_outcomes_account_id_reference_closed_at_idx" ON "shield_counterparty_outcomes"("account_id", "reference", "closed_at");
