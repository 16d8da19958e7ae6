// Issue 33: configuration is read in lib/config only. The lint rule of eslint.config.mjs refuses process.env
// elsewhere in lib/ (and in app/ and proxy.ts), so a new variable has to go through lib/config's schema.
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint();
const SOURCE = "export const port = process.env.PORT;\n";

async function envRuleMessages(filePath: string, code: string = SOURCE): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-properties").map((m) => m.message);
}

describe("process.env outside lib/config", () => {
  it.each(["lib/webhooks/example.ts", "lib/observability/example.ts", "app/api/example/route.ts", "proxy.ts", "server.ts"])("is refused in %s", async (file) => {
    const messages = await envRuleMessages(file);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("lib/config");
  });

  it("is refused when destructured too", async () => {
    expect(await envRuleMessages("lib/webhooks/example.ts", "const { env } = process;\nexport const port = env.PORT;\n")).toHaveLength(1);
  });

  it.each(["lib/config/example.ts", "scripts/example.ts", "tests/unit/example.test.ts", "bench/example.ts"])("is allowed in %s", async (file) => {
    expect(await envRuleMessages(file)).toEqual([]);
  });
});
