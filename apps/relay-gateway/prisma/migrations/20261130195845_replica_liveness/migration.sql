-- CreateTable
CREATE TABLE "relay_replicas" (
    "replica_id" VARCHAR(64) NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "relay_replicas_pkey" PRIMARY KEY ("replica_id")
);
