-- AlterTable
ALTER TABLE "Registration" ADD COLUMN "agentKeyThumbprint" TEXT;
ALTER TABLE "Registration" ADD COLUMN "agentOrigin" TEXT;

