-- CreateTable
CREATE TABLE "registry_namespace_trust" (
    "namespace" TEXT NOT NULL,
    "publisher_id" TEXT,
    "method" TEXT,
    "verified_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "lapsed_at" TIMESTAMPTZ(3),
    "signature_policy" TEXT NOT NULL DEFAULT 'verify-if-present',
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registry_namespace_trust_pkey" PRIMARY KEY ("namespace")
);

-- CreateTable
CREATE TABLE "registry_namespace_lookalikes" (
    "namespace" TEXT NOT NULL,
    "lookalike_of" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "flagged_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registry_namespace_lookalikes_pkey" PRIMARY KEY ("namespace","lookalike_of")
);

-- CreateTable
CREATE TABLE "registry_revision_signatures" (
    "identifier" TEXT NOT NULL,
    "revision" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "verified" BOOLEAN NOT NULL,
    "signer" TEXT,
    "kid" TEXT,
    "alg" TEXT,
    "code" TEXT,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,
    "key_url" TEXT,
    "key_digest" TEXT,

    CONSTRAINT "registry_revision_signatures_pkey" PRIMARY KEY ("identifier","revision")
);

-- CreateIndex
CREATE INDEX "registry_namespace_lookalikes_lookalike_of_idx" ON "registry_namespace_lookalikes"("lookalike_of");

-- CreateIndex
CREATE INDEX "registry_revision_signatures_key_url_idx" ON "registry_revision_signatures"("key_url");

-- CreateIndex
CREATE INDEX "registry_revision_signatures_namespace_idx" ON "registry_revision_signatures"("namespace");
