import type { z } from "zod";
import { clip } from "./text";

/** The first zod issue as one sentence for an error_description, e.g. "arguments.top_k: Too big: expected number to be <=10." */
export function describeIssue(error: z.ZodError, prefix: string): string {
  const issue = error.issues[0];
  if (!issue) return `${prefix || "body"} is invalid.`;
  const where = [prefix, ...issue.path.map(String)].filter(Boolean).join(".") || "body";
  const keys = issue.code === "unrecognized_keys" ? ` (${issue.keys.map((k) => clip(k, 40)).join(", ")})` : "";
  return `${where}: ${issue.message}${keys}.`;
}
