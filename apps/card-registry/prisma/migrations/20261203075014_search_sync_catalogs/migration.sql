-- AlterTable
ALTER TABLE "registry_cards" ADD COLUMN     "content_type" TEXT,
ADD COLUMN     "description" TEXT,
ADD COLUMN     "name" TEXT,
ADD COLUMN     "protocols" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "search_document" tsvector,
ADD COLUMN     "search_revision" TEXT,
ADD COLUMN     "search_status" TEXT,
ADD COLUMN     "tags" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE INDEX "registry_cards_search_document_idx" ON "registry_cards" USING GIN ("search_document");

-- CreateIndex
CREATE INDEX "registry_cards_tags_idx" ON "registry_cards" USING GIN ("tags");
