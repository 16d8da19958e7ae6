// A2A version negotiation (A2A 1.0 §3.6): the client names the version it speaks in the A2A-Version header,
// Major.Minor; absent or empty means 0.3. This agent speaks 1.0 and 0.3 (any 0.3.x and 1.0.x patch reads as its
// Major.Minor); anything else is VersionNotSupported (-32009).
import { A2A_VERSION_HEADER } from "@a2a-js/sdk";
import { A2A_INTERFACE_VERSIONS } from "./card";

export { A2A_VERSION_HEADER };

export type A2aVersion = (typeof A2A_INTERFACE_VERSIONS)[keyof typeof A2A_INTERFACE_VERSIONS];

export type NegotiatedVersion = { ok: true; version: A2aVersion } | { ok: false; requested: string };

const VERSION_FORM = /^(\d{1,4})\.(\d{1,4})(?:\.\d{1,4})?$/;

/** The version a request speaks, from its A2A-Version header value (null when absent). */
export function negotiateA2aVersion(header: string | null | undefined): NegotiatedVersion {
  const requested = (header ?? "").trim();
  if (requested === "") return { ok: true, version: A2A_INTERFACE_VERSIONS.legacy };
  const match = VERSION_FORM.exec(requested);
  const majorMinor = match ? `${Number(match[1])}.${Number(match[2])}` : undefined;
  if (majorMinor === A2A_INTERFACE_VERSIONS.current) return { ok: true, version: A2A_INTERFACE_VERSIONS.current };
  if (majorMinor === A2A_INTERFACE_VERSIONS.legacy) return { ok: true, version: A2A_INTERFACE_VERSIONS.legacy };
  return { ok: false, requested };
}
