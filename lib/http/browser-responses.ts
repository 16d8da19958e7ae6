// Answers of the human pages' form endpoints (not API paths): redirects after a POST and a small
// HTML refusal. JSON API errors come from lib/http/errors.ts instead.
import { textReply, type ApiReply } from "./api";
import { REFUSAL_PAGE_STYLE } from "./security-headers";

/** 303 See Other after a form POST (never 307: the browser must not repeat the POST). */
export function seeOther(location: string): ApiReply {
  return { status: 303, headers: { location, "cache-control": "no-store" }, body: null };
}

/** A form POST that cannot be trusted (cross-site, no valid form token) or is malformed: nothing changed. */
export function formRefused(status: 400 | 403 = 403): ApiReply {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Request refused · Agent Gate</title><style>${REFUSAL_PAGE_STYLE}</style></head><body><h1>Request refused</h1><p>This form could not be verified, so nothing was changed. Go back, reload the page and try again.</p></body></html>`;
  return textReply(html, status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
}
