// npm run webhook:add -- --url URL [--events a,b]   prints the endpoint's id and secret (once)
// npm run webhook:list                              per endpoint: url, events, last success/failure, backlog
// npm run webhook:remove -- ID
// npm run webhook:rotate-secret -- ID               prints the new secret (once); the old one signs 24 h more
// npm run webhook:deliver                           one delivery pass now
// Never prints a stored secret; an unreachable or unmigrated database is one line and exit code 1.
import { parseArgs } from "node:util";
import { closeConnection, isDatabaseUnavailable } from "@/lib/db";
import { addEndpoint, listEndpointsWithStats, removeEndpoint, rotateEndpointSecret, runDeliveryPass, WebhookAddressError, WebhookInputError } from "@/lib/webhooks";

const USAGE = "Usage: npm run webhook:add -- --url URL [--events a,b] | webhook:list | webhook:remove -- ID | webhook:rotate-secret -- ID | webhook:deliver";

class UsageError extends Error {}

function isUnmigrated(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return e?.code === "42P01" || (typeof e?.message === "string" && /no such table/i.test(e.message));
}

const when = (date: Date | null): string => (date ? date.toISOString() : "never");

async function run(command: string | undefined, args: string[]): Promise<void> {
  switch (command) {
    case "add": {
      const { values } = parseArgs({ args, options: { url: { type: "string" }, events: { type: "string" } }, strict: true });
      if (!values.url) throw new UsageError("--url is required");
      const endpoint = await addEndpoint({ url: values.url, events: values.events });
      console.log(`Added webhook endpoint ${endpoint.id} for ${endpoint.url} (events: ${endpoint.events.length ? endpoint.events.join(", ") : "all"}).`);
      console.log(`Signing secret (shown once, keep it in the receiver's configuration): ${endpoint.secret}`);
      if (endpoint.note) console.log(endpoint.note);
      return;
    }
    case "list": {
      if (args.length > 0) throw new UsageError("webhook:list takes no arguments");
      const endpoints = await listEndpointsWithStats();
      if (endpoints.length === 0) console.log("No webhook endpoints.");
      for (const e of endpoints) {
        console.log(`${e.id}  ${e.url}`);
        console.log(
          `  events: ${e.events.length ? e.events.join(", ") : "all"}; added ${when(e.createdAt)}${e.rotationEndsAt ? `; previous secret signs until ${when(e.rotationEndsAt)}` : ""}`,
        );
        console.log(`  last success: ${when(e.stats.lastSuccessAt)}; last failure: ${e.stats.lastFailureAt ? `${when(e.stats.lastFailureAt)} (${e.stats.lastFailure})` : "never"}`);
        console.log(`  backlog: ${e.stats.backlog} pending; given up: ${e.stats.gaveUp}`);
      }
      return;
    }
    case "remove": {
      if (args.length !== 1) throw new UsageError("webhook:remove needs the endpoint id");
      if (!(await removeEndpoint(args[0]))) throw new WebhookInputError(`no webhook endpoint ${args[0]}`);
      console.log(`Removed webhook endpoint ${args[0]} and its pending deliveries.`);
      return;
    }
    case "rotate-secret": {
      if (args.length !== 1) throw new UsageError("webhook:rotate-secret needs the endpoint id");
      const rotated = await rotateEndpointSecret(args[0]);
      if (!rotated) throw new WebhookInputError(`no webhook endpoint ${args[0]}`);
      console.log(`New signing secret for ${args[0]} (shown once): ${rotated.secret}`);
      console.log(`The previous secret also signs until ${rotated.previousValidUntil.toISOString()}.`);
      return;
    }
    case "deliver": {
      const s = await runDeliveryPass();
      console.log(`Delivery pass: ${s.delivered} delivered, ${s.retrying} to retry, ${s.gaveUp} given up, ${s.fannedOut} new events, ${s.expired} claims expired.`);
      return;
    }
    default:
      throw new UsageError(`unknown command ${command ?? "(none)"}`);
  }
}

const [command, ...args] = process.argv.slice(2);
run(command, args)
  .then(() => closeConnection())
  .catch(async (error: unknown) => {
    let line: string;
    let code = 1;
    if (error instanceof UsageError || (error instanceof TypeError && (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS"))) {
      line = `${error.message}. ${USAGE}`;
      code = 2;
    } else if (error instanceof WebhookInputError || error instanceof WebhookAddressError) {
      line = error.message;
      code = 2;
    } else if (isDatabaseUnavailable(error) || (error instanceof Error && /cannot open database|directory does not exist/i.test(error.message)))
      line = "the database cannot be reached (check DATABASE_URL)";
    else if (isUnmigrated(error)) line = "the database has no webhook tables yet: run npm run db:migrate";
    else line = `failed (${error instanceof Error ? error.name : "unknown error"})`;
    console.error(`webhook:${command ?? ""}: ${line}`);
    await closeConnection().catch(() => undefined);
    process.exit(code);
  });
