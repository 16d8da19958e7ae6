// npm run member:add -- --email E --password P --name "Display Name" [--private]
// Adds a member. Never echoes the password.
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { createMember, DuplicateMemberError } from "@/lib/members";
import { runCommand } from "./command";

const USAGE = 'Usage: npm run member:add -- --email E --password P --name "Display Name"';

/** Bad input: one line, exit code 2. */
function refuse(message: string): number {
  console.error(`member:add: ${message}`);
  return 2;
}

void runCommand("member:add", async () => {
  let values: { email?: string; password?: string; name?: string; private?: boolean };
  try {
    ({ values } = parseArgs({
      options: { email: { type: "string" }, password: { type: "string" }, name: { type: "string" }, private: { type: "boolean" } },
      strict: true,
    }));
  } catch (error) {
    return refuse(`${(error as Error).message}. ${USAGE}`);
  }
  if (!values.email || !values.password || !values.name) return refuse(`--email, --password and --name are required. ${USAGE}`);
  try {
    const member = await createMember({ email: values.email, password: values.password, displayName: values.name, publicProfile: !values.private });
    console.log(`Added member ${member.email} (${member.displayName}, slug ${member.slug}).`);
  } catch (error) {
    if (error instanceof DuplicateMemberError) return refuse(error.message);
    if (error instanceof ZodError) return refuse(error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
    throw error;
  }
});
