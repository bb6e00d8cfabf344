-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "registry_publishers" (
    "publisher_id" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "registered_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registry_publishers_pkey" PRIMARY KEY ("publisher_id")
);

-- CreateTable
CREATE TABLE "registry_namespaces" (
    "namespace" TEXT NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "granted_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registry_namespaces_pkey" PRIMARY KEY ("namespace")
);

-- CreateTable
CREATE TABLE "registry_cards" (
    "identifier" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT,
    "status_message" TEXT,
    "renamed_to" TEXT,
    "latest_revision" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registry_cards_pkey" PRIMARY KEY ("identifier")
);

-- CreateTable
CREATE TABLE "registry_card_revisions" (
    "identifier" TEXT NOT NULL,
    "revision" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "summary" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "status_message" TEXT,
    "published_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registry_card_revisions_pkey" PRIMARY KEY ("identifier","revision")
);

-- CreateIndex
CREATE INDEX "registry_namespaces_publisher_id_idx" ON "registry_namespaces"("publisher_id");

-- CreateIndex
CREATE INDEX "registry_cards_namespace_idx" ON "registry_cards"("namespace");

-- CreateIndex
CREATE INDEX "registry_cards_updated_at_identifier_idx" ON "registry_cards"("updated_at", "identifier");

-- CreateIndex
CREATE INDEX "registry_card_revisions_updated_at_identifier_idx" ON "registry_card_revisions"("updated_at", "identifier");
