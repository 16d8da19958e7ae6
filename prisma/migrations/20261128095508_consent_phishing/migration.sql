-- CreateTable
CREATE TABLE "ConsentSetting" (
    "memberId" TEXT NOT NULL PRIMARY KEY,
    "verifiedAgentsOnly" BOOLEAN NOT NULL DEFAULT false,
    "confirmUnverifiedAgents" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ConsentSetting_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AgentReport" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "createdAt" DATETIME NOT NULL,
    "memberId" TEXT NOT NULL,
    "registrationId" TEXT NOT NULL,
    "clientName" TEXT,
    "agentOrigin" TEXT,
    "networkHash" TEXT
);

-- CreateTable
CREATE TABLE "BlockedAgentOrigin" (
    "origin" TEXT NOT NULL PRIMARY KEY,
    "status" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "changedAt" DATETIME NOT NULL
);

-- AlterTable (columns added in place: no copy of the table)
ALTER TABLE "ClaimAttempt" ADD COLUMN "networkHash" TEXT;
ALTER TABLE "ClaimAttempt" ADD COLUMN "confirmationCodeHash" TEXT;
ALTER TABLE "ClaimAttempt" ADD COLUMN "confirmationFailures" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "AgentReport_agentOrigin_createdAt_idx" ON "AgentReport"("agentOrigin", "createdAt");

-- CreateIndex
CREATE INDEX "AgentReport_memberId_idx" ON "AgentReport"("memberId");

