// npm run -s keys:new: prints a new signing key as the value SIGNING_KEYS takes (one line of JSON: an array of one
// private Ed25519 JWK, the shape keys:export prints too) and, on stderr, how to rotate with it (docs/security.md,
// "Rotating signing keys": keys are added, promoted and dropped by joining and slicing these arrays). Touches no database.
import { newSigningJwk } from "@/lib/keys/new-key";

newSigningJwk().then(
  (jwk) => {
    console.log(JSON.stringify([jwk]));
    console.error(
      [
        `keys:new: new signing key ${jwk.kid}, as SIGNING_KEYS takes it. Keep it secret. A new deployment: SIGNING_KEYS=<this line>. To rotate (docs/security.md):`,
        "  1. add it as the second key: SIGNING_KEYS=[<current keys>, <this key>]; restart every instance (no SIGNING_KEYS yet: npm run -s keys:export prints the generated current key)",
        "  2. promote it to first: SIGNING_KEYS=[<this key>, <old key>]; restart every instance",
        "  3. after 24 h (the assertion lifetime) drop the old key: SIGNING_KEYS=[<this key>]; restart",
      ].join("\n"),
    );
  },
  (error: unknown) => {
    console.error(`keys:new: failed: ${(error as Error).message}`);
    process.exitCode = 1;
  },
);
