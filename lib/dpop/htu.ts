// The `htu` comparison of RFC 9449 §4.3: the proof's URI and the request's, each without query and fragment, after
// syntax-based and scheme-based normalisation (RFC 3986 §6.2.2, §6.2.3). WHATWG URL parsing does most of it (scheme
// and host case, the default port, an empty path as "/", dot segments, %2E included); what it leaves, the case of
// percent-encoding hex digits and percent-encoded unreserved characters, is done here.

/** Characters RFC 3986 §2.3 calls unreserved: percent-encoding them changes nothing, so they are decoded. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

function normalizePercentEncoding(path: string): string {
  return path.replace(/%[0-9A-Fa-f]{2}/g, (escape) => {
    const character = String.fromCharCode(Number.parseInt(escape.slice(1), 16));
    return UNRESERVED.test(character) ? character : escape.toUpperCase();
  });
}

/** The normalised http(s) URI without query and fragment, or null when `value` is not an absolute http(s) URI. */
export function normalizeHtu(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const userinfo = url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ""}@` : "";
  return `${url.protocol}//${userinfo}${url.host}${normalizePercentEncoding(url.pathname)}`;
}
