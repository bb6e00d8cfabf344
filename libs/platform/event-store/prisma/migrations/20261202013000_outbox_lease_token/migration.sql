-- AlterTable
ALTER TABLE "outbox_leases" ADD COLUMN     "token" VARCHAR(36) NOT NULL DEFAULT '';
