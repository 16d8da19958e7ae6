// Webhook signing secrets: whsec_ + base64 of 32 CSPRNG bytes (Standard Webhooks), kept encrypted at rest
// with AES-256-GCM under a key derived from AUTH_SECRET by HKDF-SHA256 (a fresh 96-bit nonce per secret).
// Changing AUTH_SECRET makes stored secrets unreadable: rotate every endpoint's secret after that.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { getAuthSecret } from "@/lib/local-secrets";

const FORMAT = "v1";
const KEY_INFO = "agent-gate webhook secrets v1";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

async function encryptionKey(): Promise<Buffer> {
  return Buffer.from(hkdfSync("sha256", await getAuthSecret(), Buffer.alloc(0), KEY_INFO, 32));
}

export async function encryptSecret(secret: string): Promise<string> {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", await encryptionKey(), nonce);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${FORMAT}.${Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString("base64url")}`;
}

export class UnreadableSecretError extends Error {
  constructor() {
    super("a webhook secret cannot be decrypted (was AUTH_SECRET changed? rotate the endpoint's secret)");
    this.name = "UnreadableSecretError";
  }
}

export async function decryptSecret(stored: string): Promise<string> {
  const [format, body] = stored.split(".");
  if (format !== FORMAT || !body) throw new UnreadableSecretError();
  const bytes = Buffer.from(body, "base64url");
  if (bytes.length < 12 + 16 + 1) throw new UnreadableSecretError();
  try {
    const decipher = createDecipheriv("aes-256-gcm", await encryptionKey(), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString("utf8");
  } catch {
    throw new UnreadableSecretError();
  }
}
