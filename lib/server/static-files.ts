// The build's static files (.next/static, served by Next at /_next/static/, the folder Next's self-hosting guide
// names for a CDN), listed once at start. A request for any other path under /_next/static/ is answered here with a
// bare 404: it skips admission like the real files (lib/routes), so it must not reach Next, which would render the
// not-found page (a session read) for it.
import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { writeReply } from "./front/node";

const PREFIX = "/_next/static/";

/** Every file under `dir`, as URL paths under /_next/static/. */
function listFiles(dir: string, urlPrefix: string, into: Set<string>): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) listFiles(path.join(dir, entry.name), `${urlPrefix}${entry.name}/`, into);
    else into.add(`${urlPrefix}${entry.name}`);
  }
}

export interface StaticFiles {
  /** Whether the path is under /_next/static/ but names no file of the build. */
  isMissing(urlPath: string): boolean;
  /** Answers a missing static file with a bare 404 (true), or leaves any other request alone (false). */
  answerMissing(req: IncomingMessage, res: ServerResponse, urlPath: string): boolean;
}

/** The build's static files in `distDir` (default .next of the working directory). */
export function staticFiles(distDir: string = path.join(process.cwd(), ".next")): StaticFiles {
  const files = new Set<string>();
  listFiles(path.join(distDir, "static"), PREFIX, files);
  const isMissing = (urlPath: string): boolean => {
    if (!urlPath.startsWith(PREFIX) || files.has(urlPath)) return false;
    try {
      return !files.has(decodeURIComponent(urlPath));
    } catch {
      // Not a valid escape: no file has that name.
      return true;
    }
  };
  return {
    isMissing,
    answerMissing: (req, res, urlPath) => {
      if (!isMissing(urlPath)) return false;
      writeReply(req, res, { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }, body: "Not found\n" });
      return true;
    },
  };
}
