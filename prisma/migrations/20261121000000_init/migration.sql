-- CreateTable
CREATE TABLE "Member" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "emailVerified" BOOLEAN NOT NULL DEFAULT true,
    "passwordHash" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "displayNameKey" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "publicProfile" BOOLEAN NOT NULL DEFAULT false,
    "joinedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "city" TEXT,
    "country" TEXT,
    "latitude" REAL,
    "longitude" REAL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Registration" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "registrationType" TEXT NOT NULL DEFAULT 'service_auth',
    "loginHint" TEXT NOT NULL,
    "clientName" TEXT,
    "scope" TEXT NOT NULL,
    "claimTokenHash" TEXT NOT NULL,
    "claimExpiresAt" DATETIME NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ClaimAttempt" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "registrationId" TEXT NOT NULL,
    "attemptTokenHash" TEXT NOT NULL,
    "userCodeHash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'initiated',
    "expiresAt" DATETIME NOT NULL,
    "interval" INTEGER NOT NULL DEFAULT 5,
    "lastPolledAt" DATETIME,
    "failedCodeCount" INTEGER NOT NULL DEFAULT 0,
    "decidedAt" DATETIME,
    "decidedByMemberId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ClaimAttempt_registrationId_fkey" FOREIGN KEY ("registrationId") REFERENCES "Registration" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Delegation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "registrationId" TEXT NOT NULL,
    "memberId" TEXT NOT NULL,
    "clientName" TEXT,
    "scope" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "approvedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "cancelledAt" DATETIME,
    CONSTRAINT "Delegation_registrationId_fkey" FOREIGN KEY ("registrationId") REFERENCES "Registration" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Delegation_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AccessToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tokenHash" TEXT NOT NULL,
    "registrationId" TEXT NOT NULL,
    "delegationId" TEXT NOT NULL,
    "memberId" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "grant" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "revokedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "AccessToken_registrationId_fkey" FOREIGN KEY ("registrationId") REFERENCES "Registration" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "AccessToken_delegationId_fkey" FOREIGN KEY ("delegationId") REFERENCES "Delegation" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "AccessToken_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SigningKey" (
    "kid" TEXT NOT NULL PRIMARY KEY,
    "privateJwk" TEXT NOT NULL,
    "publicJwk" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "LocalSecret" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "RateLimitBucket" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "windowStart" DATETIME NOT NULL,
    "count" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "type" TEXT NOT NULL,
    "memberId" TEXT,
    "registrationId" TEXT,
    "detail" TEXT
);

-- CreateTable
CREATE TABLE "Certificate" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "memberId" TEXT,
    "holderDisplayName" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "issuedAt" DATETIME NOT NULL,
    "revokedAt" DATETIME,
    CONSTRAINT "Certificate_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "Member" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AgentNamePreRegistration" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentName" TEXT NOT NULL,
    "agentNameKey" TEXT NOT NULL,
    "description" TEXT,
    "reference" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "CachedStat" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "value" INTEGER NOT NULL,
    "computedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "A2ATask" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "contextId" TEXT NOT NULL,
    "skill" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "task" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "Member_email_key" ON "Member"("email");

-- CreateIndex
CREATE UNIQUE INDEX "Member_slug_key" ON "Member"("slug");

-- CreateIndex
CREATE INDEX "Member_displayNameKey_idx" ON "Member"("displayNameKey");

-- CreateIndex
CREATE INDEX "Member_publicProfile_idx" ON "Member"("publicProfile");

-- CreateIndex
CREATE UNIQUE INDEX "Registration_claimTokenHash_key" ON "Registration"("claimTokenHash");

-- CreateIndex
CREATE INDEX "Registration_loginHint_idx" ON "Registration"("loginHint");

-- CreateIndex
CREATE UNIQUE INDEX "ClaimAttempt_attemptTokenHash_key" ON "ClaimAttempt"("attemptTokenHash");

-- CreateIndex
CREATE INDEX "ClaimAttempt_registrationId_idx" ON "ClaimAttempt"("registrationId");

-- CreateIndex
CREATE UNIQUE INDEX "Delegation_registrationId_key" ON "Delegation"("registrationId");

-- CreateIndex
CREATE INDEX "Delegation_memberId_idx" ON "Delegation"("memberId");

-- CreateIndex
CREATE UNIQUE INDEX "AccessToken_tokenHash_key" ON "AccessToken"("tokenHash");

-- CreateIndex
CREATE INDEX "AccessToken_delegationId_idx" ON "AccessToken"("delegationId");

-- CreateIndex
CREATE INDEX "AccessToken_registrationId_idx" ON "AccessToken"("registrationId");

-- CreateIndex
CREATE INDEX "RateLimitBucket_expiresAt_idx" ON "RateLimitBucket"("expiresAt");

-- CreateIndex
CREATE INDEX "AuditEvent_memberId_at_idx" ON "AuditEvent"("memberId", "at");

-- CreateIndex
CREATE INDEX "AuditEvent_registrationId_idx" ON "AuditEvent"("registrationId");

-- CreateIndex
CREATE UNIQUE INDEX "AgentNamePreRegistration_agentNameKey_key" ON "AgentNamePreRegistration"("agentNameKey");

-- CreateIndex
CREATE UNIQUE INDEX "AgentNamePreRegistration_reference_key" ON "AgentNamePreRegistration"("reference");

-- CreateIndex
CREATE INDEX "A2ATask_expiresAt_idx" ON "A2ATask"("expiresAt");

