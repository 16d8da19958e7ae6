-- AlterTable
ALTER TABLE "AccessToken" ADD COLUMN "agentOrigin" TEXT;
ALTER TABLE "AccessToken" ADD COLUMN "dpopJkt" TEXT;

-- AlterTable
ALTER TABLE "Registration" ADD COLUMN "dpopJkt" TEXT;

