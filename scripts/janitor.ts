// npm run janitor: one janitor pass (lib/operator/janitor.ts) by hand; prints what it removed per table.
import { runCommand } from "./command";
import { describeReport, runJanitorPass } from "@/lib/operator/janitor";

void runCommand("janitor", async () => {
  const report = await runJanitorPass();
  console.log(`janitor: ${report.ran ? "removed " : ""}${describeReport(report)}`);
});
