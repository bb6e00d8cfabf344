-- CreateTable
CREATE TABLE "relay_workspace_cards" (
    "workspace_id" UUID NOT NULL,
    "identifier" VARCHAR(512) NOT NULL,
    "name" VARCHAR(400) NOT NULL,
    "description" VARCHAR(4000) NOT NULL,
    "tags" VARCHAR(2000) NOT NULL,
    "endpoint" VARCHAR(600) NOT NULL,
    "end_to_end_encrypted" BOOLEAN NOT NULL,
    "created_at" VARCHAR(40) NOT NULL,
    "revision" VARCHAR(40) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "desired_version" INTEGER NOT NULL,
    "delivered_version" INTEGER NOT NULL DEFAULT 0,
    "delivered_status" VARCHAR(16),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "lease_until" TIMESTAMPTZ(3),
    "refusal_code" VARCHAR(64),
    "last_error_code" VARCHAR(64),

    CONSTRAINT "relay_workspace_cards_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "relay_card_devices" (
    "device_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "revoked" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "relay_card_devices_pkey" PRIMARY KEY ("device_id")
);

-- CreateIndex
CREATE INDEX "relay_workspace_cards_delivery_idx" ON "relay_workspace_cards"("delivered_version", "desired_version");

-- CreateIndex
CREATE INDEX "relay_card_devices_workspace_idx" ON "relay_card_devices"("workspace_id");
