-- CreateTable
CREATE TABLE "SharedState" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "count" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "SharedState_expiresAt_idx" ON "SharedState"("expiresAt");

