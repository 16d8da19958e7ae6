-- CreateTable
CREATE TABLE "SharedState" (
    "key" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SharedState_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "SharedState_expiresAt_idx" ON "SharedState"("expiresAt");

