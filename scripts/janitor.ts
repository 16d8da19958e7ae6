// npm run janitor: one janitor pass (lib/operations/janitor.ts) by hand; prints what it removed per table.
import { runCommand } from "@/lib/operations/cli";
import { describeReport, runJanitorPass } from "@/lib/operations/janitor";

void runCommand("janitor", async () => {
  const report = await runJanitorPass();
  console.log(`janitor: ${report.ran ? "removed " : ""}${describeReport(report)}`);
});
