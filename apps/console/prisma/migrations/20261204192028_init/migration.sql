-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "console_accounts" (
    "account_id" UUID NOT NULL,
    "username" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "password_changed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "console_accounts_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "console_workspaces" (
    "workspace_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "display_name" TEXT NOT NULL,
    "end_to_end_encrypted" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "console_workspaces_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "console_sessions" (
    "session_hash" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "username" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("session_hash")
);

-- CreateIndex
CREATE UNIQUE INDEX "console_accounts_username_key" ON "console_accounts"("username");

-- CreateIndex
CREATE INDEX "console_workspaces_account_id_created_at_workspace_id_idx" ON "console_workspaces"("account_id", "created_at", "workspace_id");

-- CreateIndex
CREATE INDEX "console_sessions_account_id_idx" ON "console_sessions"("account_id");

-- CreateIndex
CREATE INDEX "console_sessions_expires_at_idx" ON "console_sessions"("expires_at");
