// npm run keys:new: prints a new private Ed25519 JWK (one line of JSON on stdout, for SIGNING_KEYS) and,
// on stderr, the rotation steps (README, "Rotating signing keys"). Touches no database.
import { newSigningJwk } from "@/lib/keys/new-key";

newSigningJwk().then(
  (jwk) => {
    console.log(JSON.stringify(jwk));
    console.error(
      [
        `keys:new: new signing key ${jwk.kid}. Keep it secret. To rotate:`,
        "  1. add it as the second key: SIGNING_KEYS=[<current key>, <this key>]; restart every instance (no SIGNING_KEYS yet: npm run -s keys:export prints the generated current key)",
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
