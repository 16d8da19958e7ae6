// npm run -s keys:export: prints the signing key a default install generated into its database (lib/keys), as the
// value SIGNING_KEYS takes (one line of JSON: an array of one private Ed25519 JWK), so a rotation can start from it
// (docs/security.md, "Rotating signing keys"). Reads the database of DATABASE_URL (default data/app.db); writes nothing.
import { getConfig } from "@/lib/config";
import { exportLocalKeySet } from "@/lib/keys";
import { runCommand } from "./command";

void runCommand("keys:export", async () => {
  if (getConfig().signingKeys) {
    console.error("keys:export: SIGNING_KEYS is set, so the service signs with those keys, not a generated one: the current key set is that value.");
    return 2;
  }
  const keys = await exportLocalKeySet();
  if (!keys) {
    console.error("keys:export: this database holds no generated signing key yet: it is made at the first start (npm start), or set SIGNING_KEYS from npm run keys:new.");
    return 1;
  }
  console.log(JSON.stringify(keys));
  console.error(
    [
      `keys:export: the generated signing key ${keys[0]!.kid}, as SIGNING_KEYS takes it. Keep it secret. To rotate:`,
      "  0. set SIGNING_KEYS to this value and restart: the same key signs, nothing changes for agents",
      '  then follow docs/security.md "Rotating signing keys" with this key as the current one (npm run -s keys:new makes the new one)',
    ].join("\n"),
  );
});
