// The docs page publishes the JSON Schema of every event type: it must be exactly what the code builds
// (and what the receiver in the webhook tests validates every payload against).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { webhookJsonSchema, WEBHOOK_EVENT_TYPES } from "@/lib/webhooks";

const page = fs.readFileSync(path.join(__dirname, "../../content/docs/webhooks.md"), "utf8");

describe("content/docs/webhooks.md", () => {
  it.each(WEBHOOK_EVENT_TYPES)("publishes the JSON Schema of %s as the code builds it", (type) => {
    const section = page.split(`### \`${type}\`\n`)[1];
    expect(section).toBeDefined();
    const block = /```json\n([\s\S]*?)\n```/.exec(section ?? "");
    expect(JSON.parse(block?.[1] ?? "null")).toEqual(webhookJsonSchema(type));
  });

  it("names every event type in the catalogue table and the Standard Webhooks headers", () => {
    for (const type of WEBHOOK_EVENT_TYPES) expect(page).toContain(`| \`${type}\` |`);
    for (const header of ["webhook-id", "webhook-timestamp", "webhook-signature"]) expect(page).toContain(`\`${header}\``);
  });
});
