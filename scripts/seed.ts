// npm run db:seed: loads the demo data into an empty database.
import { closeConnection } from "@/lib/db";
import { seedDemoDataIfEmpty } from "@/lib/demo/seed";

async function main() {
  const loaded = await seedDemoDataIfEmpty();
  console.log(loaded ? "Demo data loaded (see README, 'Demo logins')." : "The database already has members; demo data not loaded.");
  await closeConnection();
}
main().catch((error: unknown) => {
  console.error(`Seeding failed: ${(error as Error).message}`);
  process.exit(1);
});
