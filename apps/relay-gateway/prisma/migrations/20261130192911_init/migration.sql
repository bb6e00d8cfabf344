-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "relay_workspaces" (
    "workspace_id" UUID NOT NULL,
    "owner_user_id" VARCHAR(200) NOT NULL,
    "display_name" VARCHAR(200) NOT NULL,
    "end_to_end_encrypted" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "relay_workspaces_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "relay_devices" (
    "device_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "pairing_code_id" UUID,
    "enrolled_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_by_user_id" VARCHAR(200),
    "revoke_reason" VARCHAR(500),
    "connected" BOOLEAN NOT NULL DEFAULT false,
    "connection_id" UUID,
    "wire_version" VARCHAR(8),
    "last_connected_at" TIMESTAMPTZ(3),
    "last_disconnected_at" TIMESTAMPTZ(3),

    CONSTRAINT "relay_devices_pkey" PRIMARY KEY ("device_id")
);

-- CreateTable
CREATE TABLE "relay_pairing_codes" (
    "code_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "requested_by_user_id" VARCHAR(200) NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "redeemed_at" TIMESTAMPTZ(3),
    "device_id" UUID,

    CONSTRAINT "relay_pairing_codes_pkey" PRIMARY KEY ("code_id")
);

-- CreateTable
CREATE TABLE "relay_browser_sessions" (
    "session_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "user_id" VARCHAR(200) NOT NULL,
    "origin" VARCHAR(300) NOT NULL,
    "accepted_wire_versions" VARCHAR(200) NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "consumed_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "wire_version" VARCHAR(8),
    "ended_at" TIMESTAMPTZ(3),
    "end_reason" VARCHAR(40),
    "close_code" INTEGER,

    CONSTRAINT "relay_browser_sessions_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "relay_workspace_status_changes" (
    "id" BIGSERIAL NOT NULL,
    "event_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "status" VARCHAR(8) NOT NULL,
    "device_id" UUID,
    "connection_id" UUID,
    "wire_version" VARCHAR(8),
    "reason" VARCHAR(40),
    "replica_id" VARCHAR(64),
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "relay_workspace_status_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "relay_interaction_audit" (
    "id" BIGSERIAL NOT NULL,
    "event_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "interaction_id" VARCHAR(100) NOT NULL,
    "method" VARCHAR(64) NOT NULL,
    "phase" VARCHAR(16) NOT NULL,
    "session_id" VARCHAR(100),
    "user_id" VARCHAR(200),
    "outcome_kind" VARCHAR(64),
    "response_kind" VARCHAR(64),
    "relay_sequence" BIGINT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "relay_interaction_audit_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "relay_workspace_presence" (
    "workspace_id" UUID NOT NULL,
    "online" BOOLEAN NOT NULL DEFAULT false,
    "device_id" UUID,
    "connection_id" UUID,
    "replica_id" VARCHAR(64),
    "wire_version" VARCHAR(8),
    "last_wire_version" VARCHAR(8),
    "changed_at" TIMESTAMPTZ(3),

    CONSTRAINT "relay_workspace_presence_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "relay_live_browser_sessions" (
    "session_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "replica_id" VARCHAR(64) NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "relay_live_browser_sessions_pkey" PRIMARY KEY ("session_id")
);

-- CreateIndex
CREATE INDEX "relay_devices_workspace_enrolled_idx" ON "relay_devices"("workspace_id", "enrolled_at", "device_id");

-- CreateIndex
CREATE INDEX "relay_pairing_codes_workspace_idx" ON "relay_pairing_codes"("workspace_id", "issued_at");

-- CreateIndex
CREATE INDEX "relay_browser_sessions_workspace_idx" ON "relay_browser_sessions"("workspace_id", "issued_at");

-- CreateIndex
CREATE UNIQUE INDEX "relay_workspace_status_changes_event_key" ON "relay_workspace_status_changes"("event_id");

-- CreateIndex
CREATE INDEX "relay_workspace_status_changes_workspace_idx" ON "relay_workspace_status_changes"("workspace_id", "occurred_at");

-- CreateIndex
CREATE UNIQUE INDEX "relay_interaction_audit_event_key" ON "relay_interaction_audit"("event_id");

-- CreateIndex
CREATE INDEX "relay_interaction_audit_interaction_idx" ON "relay_interaction_audit"("workspace_id", "interaction_id");

-- CreateIndex
CREATE INDEX "relay_live_browser_sessions_workspace_idx" ON "relay_live_browser_sessions"("workspace_id");
