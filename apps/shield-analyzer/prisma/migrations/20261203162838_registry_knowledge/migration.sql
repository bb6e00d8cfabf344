-- CreateTable
CREATE TABLE "shield_registry_namespaces" (
    "namespace" TEXT NOT NULL,
    "publisher_id" TEXT,
    "proof" JSONB,
    "lookalike_of" JSONB NOT NULL DEFAULT '[]',
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shield_registry_namespaces_pkey" PRIMARY KEY ("namespace")
);

-- CreateTable
CREATE TABLE "shield_registry_publishers" (
    "publisher_id" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,

    CONSTRAINT "shield_registry_publishers_pkey" PRIMARY KEY ("publisher_id")
);

-- CreateTable
CREATE TABLE "shield_registry_cards" (
    "identifier" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "facts" JSONB NOT NULL,
    "endpoints" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shield_registry_cards_pkey" PRIMARY KEY ("identifier")
);

-- CreateIndex
CREATE INDEX "shield_registry_cards_namespace_idx" ON "shield_registry_cards"("namespace");

-- CreateIndex
CREATE INDEX "shield_registry_cards_endpoints_idx" ON "shield_registry_cards" USING GIN ("endpoints");
