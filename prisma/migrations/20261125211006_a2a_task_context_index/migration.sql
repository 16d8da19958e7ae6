-- CreateIndex
CREATE INDEX "A2ATask_contextId_createdAt_idx" ON "A2ATask"("contextId", "createdAt");

