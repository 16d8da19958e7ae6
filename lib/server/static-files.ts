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

/** The answerer of missing static files for the build in `distDir` (default .next of the working directory). */
export function missingStaticFiles(distDir: string = path.join(process.cwd(), ".next")): (req: IncomingMessage, res: ServerResponse, urlPath: string) => boolean {
  const files = new Set<string>();
  listFiles(path.join(distDir, "static"), PREFIX, files);
  return (req, res, urlPath) => {
    if (!urlPath.startsWith(PREFIX) || files.has(urlPath)) return false;
    let decoded = urlPath;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      // Not a valid escape: no file has that name.
    }
    if (files.has(decoded)) return false;
    writeReply(req, res, { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }, body: "Not found\n" });
    return true;
  };
}
