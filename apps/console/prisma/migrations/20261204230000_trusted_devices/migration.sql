-- Browsers that signed in to an account before: sign-in attempts from them are limited per device, not per
-- username (the console's sign-in limits), so guessing at a name cannot lock its owner out.
CREATE TABLE "console_trusted_devices" (
    "device_hash" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "username" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "console_trusted_devices_pkey" PRIMARY KEY ("device_hash")
);

CREATE INDEX "console_trusted_devices_account_id_idx" ON "console_trusted_devices"("account_id");
CREATE INDEX "console_trusted_devices_username_created_at_idx" ON "console_trusted_devices"("username", "created_at");
CREATE INDEX "console_trusted_devices_expires_at_idx" ON "console_trusted_devices"("expires_at");
