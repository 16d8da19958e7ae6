-- AlterTable
ALTER TABLE "ClaimAttempt" ADD COLUMN     "confirmationCodeHash" TEXT,
ADD COLUMN     "confirmationFailures" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "networkHash" TEXT;

-- CreateTable
CREATE TABLE "ConsentSetting" (
    "memberId" TEXT NOT NULL,
    "verifiedAgentsOnly" BOOLEAN NOT NULL DEFAULT false,
    "confirmUnverifiedAgents" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ConsentSetting_pkey" PRIMARY KEY ("memberId")
);

-- CreateTable
CREATE TABLE "AgentReport" (
    "id" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "memberId" TEXT NOT NULL,
    "registrationId" TEXT NOT NULL,
    "clientName" TEXT,
    "agentOrigin" TEXT,
    "networkHash" TEXT,

    CONSTRAINT "AgentReport_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BlockedAgentOrigin" (
    "origin" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "changedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BlockedAgentOrigin_pkey" PRIMARY KEY ("origin")
);

-- CreateIndex
CREATE INDEX "AgentReport_agentOrigin_createdAt_idx" ON "AgentReport"("agentOrigin", "createdAt");

-- CreateIndex
CREATE INDEX "AgentReport_memberId_idx" ON "AgentReport"("memberId");

-- AddForeignKey
ALTER TABLE "ConsentSetting" ADD CONSTRAINT "ConsentSetting_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member"("id") ON DELETE CASCADE ON UPDATE CASCADE;

