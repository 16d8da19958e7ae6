-- DropIndex
DROP INDEX "AccessToken_registrationId_idx";

