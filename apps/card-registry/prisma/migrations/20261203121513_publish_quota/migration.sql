-- CreateTable
CREATE TABLE "registry_publish_quota" (
    "publisher_id" TEXT NOT NULL,
    "day" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "registry_publish_quota_pkey" PRIMARY KEY ("publisher_id","day")
);

-- CreateIndex
CREATE INDEX "registry_publish_quota_day_idx" ON "registry_publish_quota"("day");
