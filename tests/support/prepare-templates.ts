// npm test (scripts/test-all.ts) builds the template databases of a run once, beside the build, and names their
// providers in TEST_TEMPLATES_READY: each Vitest and Playwright run of that npm test then copies them instead of
// migrating and seeding its own (about 15 s a run on PostgreSQL).
//   tsx tests/support/prepare-templates.ts sqlite postgres
import { prepareTemplate, type Provider } from "./databases";

async function main(providers: string[]): Promise<void> {
  for (const provider of providers) {
    if (provider !== "sqlite" && provider !== "postgres") throw new Error(`unknown provider ${provider}: sqlite or postgres`);
    const started = Date.now();
    await prepareTemplate(provider satisfies Provider);
    console.log(`${provider} template ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

void main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
