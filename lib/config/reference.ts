// Every variable of the schemas with its description (./describe.ts): what docs/configuration.md lists, what
// `npm run config` prints, and the names the start knows (lib/startup adds the RATE_LIMIT_* budgets').
import { z } from "zod";
import { variableMeta, type VariableMeta } from "./describe";
import { SETTING_SCHEMAS } from "./schema";

export interface VariableReference extends VariableMeta {
  name: string;
  /** The default as shown (markdown), or undefined when unset means "off" and nothing else. */
  defaultText: string | undefined;
}

/** The schema's own default of an entry, as shown: `on`, `1000`. */
function schemaDefault(schema: z.ZodType): string | undefined {
  if (!(schema instanceof z.ZodDefault)) return undefined;
  const value: unknown = schema.def.defaultValue;
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? `\`${String(value)}\`` : undefined;
}

/** A described entry; throws for one without a description (the schema's tests check there is none). */
function referenceOf(name: string, schema: z.ZodType): VariableReference {
  const meta = variableMeta.get(schema);
  if (!meta) throw new Error(`lib/config: ${name} has no description (described(…), lib/config/describe.ts)`);
  const stated = typeof meta.default === "number" ? `\`${meta.default}\`` : meta.default;
  return { name, ...meta, defaultText: stated ?? schemaDefault(schema) };
}

/** Every variable the service reads, in schema order. */
export function configurationVariables(): VariableReference[] {
  return SETTING_SCHEMAS.flatMap((schema) => Object.entries(schema.shape).map(([name, entry]) => referenceOf(name, entry as z.ZodType)));
}
