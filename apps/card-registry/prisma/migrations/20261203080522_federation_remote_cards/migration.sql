-- CreateTable
CREATE TABLE "registry_remote_cards" (
    "source_id" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "revision_key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "type" TEXT,
    "version" TEXT,
    "digest" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "source_url" TEXT NOT NULL,
    "catalog_url" TEXT NOT NULL,
    "document_url" TEXT,
    "fetched_at" TIMESTAMPTZ(3) NOT NULL,
    "etag" TEXT,
    "last_modified" TEXT,
    "crawl_id" TEXT NOT NULL,
    "gone_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registry_remote_cards_pkey" PRIMARY KEY ("source_id","identifier","revision_key")
);

-- CreateIndex
CREATE INDEX "registry_remote_cards_identifier_idx" ON "registry_remote_cards"("identifier");

-- CreateIndex
CREATE INDEX "registry_remote_cards_updated_at_identifier_idx" ON "registry_remote_cards"("updated_at", "identifier");
