// Security headers for every response (CONTRACT.md §8; issue 2): next.config.ts applies them to whatever
// Next answers, lib/front to what the node:http front answers. Pages have no third-party resources;
// Next's inline bootstrap scripts need 'unsafe-inline' without a nonce proxy.
export const SECURITY_HEADERS: readonly (readonly [name: string, value: string])[] = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Frame-Options", "DENY"],
  [
    "Content-Security-Policy",
    [
      "default-src 'self'",
      "script-src 'self' 'unsafe-inline'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "font-src 'self'",
      "object-src 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join("; "),
  ],
];
