// One value per process and DATABASE_URL, kept in lib/registry: Next bundles route modules (and the server
// entry) separately, and all of them must share the one connection (or inspection client) of the process.
import { processSingleton } from "@/lib/registry";

const slots = processSingleton<Record<string, { url: string; value: unknown } | undefined>>("db.per-url", () => ({}));

/** The value kept in `slot` for `url`, opened (and the previous one dropped) when the URL changed. */
export function perUrl<T>(slot: string, url: string, open: (url: string) => T): T {
  const current = slots[slot];
  if (current && current.url === url) return current.value as T;
  const value = open(url);
  slots[slot] = { url, value };
  return value;
}

/** Forgets the value kept in `slot` and hands it back (to close it). */
export function takePerUrl<T>(slot: string): T | undefined {
  const current = slots[slot];
  slots[slot] = undefined;
  return current?.value as T | undefined;
}
