/**
 * The return address after sign-in, honoured only for same-origin paths (no open redirect).
 * Accepts "/path?x" or an absolute URL on `baseUrl`; anything else (other origins, "//host", "/\\host",
 * javascript:, control characters) falls back to "/account".
 */
export function safeReturnPath(candidate: string | null | undefined, baseUrl: string, fallback = "/account"): string {
  if (!candidate || candidate.length > 2000 || /[\u0000-\u001f\u007f\\]/.test(candidate)) return fallback;
  let url: URL;
  try {
    url = new URL(candidate, baseUrl);
  } catch {
    return fallback;
  }
  if (url.origin !== new URL(baseUrl).origin) return fallback;
  if (!candidate.startsWith("/") && !candidate.startsWith(baseUrl)) return fallback;
  if (candidate.startsWith("//")) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Dot segments can normalize to "//host" (e.g. "/.//host"), which a browser reads as another origin.
  if (path.startsWith("//") || path.startsWith("/\\")) return fallback;
  return path.startsWith("/login") ? fallback : path;
}
