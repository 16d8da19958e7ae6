-- DropForeignKey
ALTER TABLE "AccessToken" DROP CONSTRAINT "AccessToken_registrationId_fkey";

-- CreateIndex
CREATE INDEX "ClaimAttempt_expiresAt_idx" ON "ClaimAttempt"("expiresAt");

-- CreateIndex
CREATE INDEX "Registration_claimExpiresAt_idx" ON "Registration"("claimExpiresAt");

