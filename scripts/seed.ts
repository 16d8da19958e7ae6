// npm run db:seed: loads the demo data into an empty database.
import { seedDemoDataIfEmpty } from "@/lib/demo/seed";
import { runCommand } from "./command";

void runCommand("db:seed", async () => {
  const loaded = await seedDemoDataIfEmpty();
  console.log(loaded ? "Demo data loaded (see README, 'Demo logins')." : "The database already has members; demo data not loaded.");
});
