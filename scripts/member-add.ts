// npm run member:add -- --email E --password P --name "Display Name" [--private]
// Adds a member. Never echoes the password.
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { closeConnection } from "@/lib/db";
import { createMember, DuplicateMemberError } from "@/lib/members";

function fail(message: string): never {
  console.error(`member:add: ${message}`);
  process.exit(2);
}

async function main() {
  let values: { email?: string; password?: string; name?: string; private?: boolean };
  try {
    ({ values } = parseArgs({
      options: { email: { type: "string" }, password: { type: "string" }, name: { type: "string" }, private: { type: "boolean" } },
      strict: true,
    }));
  } catch (error) {
    fail(`${(error as Error).message}. Usage: npm run member:add -- --email E --password P --name "Display Name"`);
  }
  if (!values.email || !values.password || !values.name) fail('--email, --password and --name are required. Usage: npm run member:add -- --email E --password P --name "Display Name"');
  try {
    const member = await createMember({ email: values.email, password: values.password, displayName: values.name, publicProfile: !values.private });
    console.log(`Added member ${member.email} (${member.displayName}, slug ${member.slug}).`);
  } catch (error) {
    if (error instanceof DuplicateMemberError) fail(error.message);
    if (error instanceof ZodError) fail(error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
    throw error;
  } finally {
    await closeConnection();
  }
}
main().catch((error: unknown) => {
  console.error(`member:add failed: ${(error as Error).message}`);
  process.exit(1);
});
