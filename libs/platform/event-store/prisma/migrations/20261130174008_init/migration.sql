-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "events" (
    "position" BIGSERIAL NOT NULL,
    "event_id" UUID NOT NULL,
    "stream_id" VARCHAR(200) NOT NULL,
    "stream_version" INTEGER NOT NULL,
    "event_type" VARCHAR(128) NOT NULL,
    "schema_version" INTEGER NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "correlation_id" VARCHAR(200) NOT NULL,
    "causation_id" VARCHAR(200),
    "traceparent" VARCHAR(55),
    "producer" VARCHAR(200) NOT NULL,
    "data" JSONB NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("position")
);

-- CreateTable
CREATE TABLE "outbox" (
    "id" BIGSERIAL NOT NULL,
    "topic" VARCHAR(249) NOT NULL,
    "event_position" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_leases" (
    "name" VARCHAR(100) NOT NULL,
    "holder" VARCHAR(100) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "outbox_leases_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "events_event_id_key" ON "events"("event_id");

-- CreateIndex
CREATE UNIQUE INDEX "events_stream_id_stream_version_key" ON "events"("stream_id", "stream_version");

-- CreateIndex
CREATE INDEX "outbox_unpublished_idx" ON "outbox"("published_at", "id");

-- CreateIndex
CREATE INDEX "outbox_event_position_idx" ON "outbox"("event_position");

-- AddForeignKey
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_event_position_fkey" FOREIGN KEY ("event_position") REFERENCES "events"("position") ON DELETE RESTRICT ON UPDATE RESTRICT;
