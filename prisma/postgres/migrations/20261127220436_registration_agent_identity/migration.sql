-- AlterTable
ALTER TABLE "Registration" ADD COLUMN     "agentKeyThumbprint" TEXT,
ADD COLUMN     "agentOrigin" TEXT;
