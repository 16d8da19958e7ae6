// What each variable of the schemas means, kept on its schema entry (zod's registries): docs/configuration.md is
// generated from it (npm run docs:config), `npm run config` prints by it, and the start knows every name by it.
import { z } from "zod";

/** The sections of docs/configuration.md, in their order. */
export const VARIABLE_GROUPS = {
  deployment: "Deployment",
  network: "Listening and callers",
  admission: "Admission control and fairness (npm start)",
  database: "Database",
  background: "Background work",
  webhooks: "Webhooks",
  observability: "Logs, metrics and traces",
  tuning: "Speed layers (npm start)",
  platform: "Set by the platform",
} as const;

export type VariableGroup = keyof typeof VARIABLE_GROUPS;

export interface VariableMeta {
  /** What it does, the values it takes, and when it matters: one paragraph of docs/configuration.md. */
  description: string;
  group: VariableGroup;
  /**
   * The default where the schema's own default does not say it (computed elsewhere, or none): a number is a value,
   * a string is markdown ("every interface").
   */
  default?: string | number;
  /** How `npm run config` shows a value: `secret`, only "set" or "unset"; `url`, without its password. */
  show?: "secret" | "url";
  /** What a deployment must set or decide, when, and what for: its row of the README's short table. */
  deploy?: string;
}

/** The registry of every variable's description (one entry per schema member). */
export const variableMeta = z.registry<VariableMeta>();

/** The schema entry with its description registered; call it last in the chain (after .optional()/.default()). */
export function described<T extends z.ZodType>(schema: T, meta: VariableMeta): T {
  variableMeta.add(schema, meta);
  return schema;
}
