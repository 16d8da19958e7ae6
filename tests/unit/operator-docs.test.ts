// Issue 51 item 1 and 7: README is the front door (at most 300 lines) and every operator topic is one link away in
// docs/; no document points outside the repository; what the README and the docs say about installs, revocation and
// the systemd recipe is what the repository does.
import fs from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { configurationVariables } from "@/lib/config/reference";
import { ROOT } from "../support/databases";

const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), "utf8");
const README = read("README.md");
const OPERATOR_DOCS = fs
  .readdirSync(path.join(ROOT, "docs"))
  .filter((file) => file.endsWith(".md"))
  .map((file) => `docs/${file}`);
const PUBLISHED = fs
  .readdirSync(path.join(ROOT, "content", "docs"))
  .filter((file) => file.endsWith(".md"))
  .map((file) => `content/docs/${file}`);
/** The repository's own documents (the published docs link by their served paths, /docs/…, and are checked in tests/unit/docs.test.ts). */
const DOCUMENTS = ["README.md", "DEVELOPING.md", "bench/README.md", ...OPERATOR_DOCS];

/** The targets of a document's markdown links that are not absolute URLs or in-page anchors. */
function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"));
}

describe("README is the front door", () => {
  it("is at most 300 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(300);
  });

  it("its contents link every operator topic in docs/, each one link away", () => {
    const linked = new Set(relativeLinks(README).map((target) => target.split("#")[0]!));
    expect(OPERATOR_DOCS.length).toBeGreaterThanOrEqual(6);
    for (const doc of OPERATOR_DOCS) expect(linked, doc).toContain(doc);
    for (const topic of ["deploying", "vercel", "systemd", "configuration", "limits", "observability", "operating", "security"])
      expect(OPERATOR_DOCS, topic).toContain(`docs/${topic}.md`);
  });

  it("keeps exactly two command lines in its quick start: the demo, and every test", () => {
    const quickStart = README.slice(README.indexOf("## Quick start"), README.indexOf("### Demo logins"));
    const blocks = [...quickStart.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((m) => m[1]!.trim());
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toBe("npm install && npm run demo");
    expect(blocks[1]).toMatch(/^apt-get update && apt-get install -y .*\bchromium\b.* && npm install && npm test$/);
  });
});

describe("no document points outside the repository", () => {
  it("every relative link resolves to a file or folder of the repository", () => {
    for (const doc of [...DOCUMENTS, ...PUBLISHED]) {
      for (const target of relativeLinks(read(doc))) {
        if (PUBLISHED.includes(doc) && target.startsWith("/")) continue; // a published page links by its served path
        const file = path.resolve(ROOT, path.dirname(doc), decodeURIComponent(target.split("#")[0]!));
        expect(file.startsWith(`${ROOT}${path.sep}`) || file === ROOT, `${doc}: ${target} leaves the repository`).toBe(true);
        expect(fs.existsSync(file), `${doc}: ${target} does not exist`).toBe(true);
      }
    }
  });

  it("every anchor it links to is a heading of its target (GitHub's heading ids)", () => {
    const anchorsOf = (markdown: string): Set<string> =>
      new Set(
        [...markdown.replace(/```[\s\S]*?```/g, "").matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
          m[1]!
            .trim()
            .toLowerCase()
            .replace(/[^\p{L}\p{N}\s_-]/gu, "")
            .replace(/\s/g, "-"),
        ),
      );
    for (const doc of DOCUMENTS) {
      const text = read(doc);
      const inPage = [...text.replace(/```[\s\S]*?```/g, "").matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => ({ file: doc, anchor: m[1]! }));
      const across = relativeLinks(text)
        .filter((target) => target.includes("#"))
        .map((target) => ({ file: path.join(path.dirname(doc), target.split("#")[0]!), anchor: target.split("#")[1]! }));
      for (const { file, anchor } of [...inPage, ...across]) {
        if (!file.endsWith(".md")) continue;
        expect(anchorsOf(read(path.normalize(file))), `${doc} → ${file}#${anchor}`).toContain(anchor);
      }
    }
  });

  it("names no file outside it (the team's shared notes, other checkouts)", () => {
    for (const doc of DOCUMENTS) {
      const text = read(doc);
      expect(text, doc).not.toMatch(/\.\.\/shared|\/work\/|SPEC\.md|CONTRACT\.md/);
    }
  });
});

describe("what the front door says is what happens", () => {
  it("the EBADENGINE sentence counts the packages whose engines exclude Node 20, this project included (package-lock.json)", () => {
    const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { engines?: { node?: string }; os?: string[]; cpu?: string[]; hasInstallScript?: boolean }> };
    const onLinux = Object.entries(lock.packages).filter(([, entry]) => (!entry.os || entry.os.includes("linux")) && (!entry.cpu || entry.cpu.includes("x64")));
    const refused = onLinux.filter(([, entry]) => entry.engines?.node !== undefined && !semver.satisfies("20.19.0", entry.engines.node));
    expect(README).toContain(`(${refused.length} packages on Node 20)`);
    const scripts = onLinux.filter(([name, entry]) => name !== "" && entry.hasInstallScript);
    expect(README).toContain(`the ${scripts.length} dependencies whose install scripts it skips`);
    expect(scripts.map(([name]) => name.replace(/^node_modules\//, "")).sort()).toEqual(["@prisma/client", "@prisma/engines", "better-sqlite3", "esbuild", "prisma"]);
  });

  it("one word for the member's action: the docs never say a member cancels a delegation (its status value stays `cancelled`)", () => {
    for (const doc of [...DOCUMENTS, ...PUBLISHED]) {
      const prose = read(doc)
        .replace(/```[\s\S]*?```/g, "")
        .replace(/`[^`\n]*`/g, "");
      expect(prose, doc).not.toMatch(/member[^.]{0,40}\bcancel(s|led|ling)?\b|\bcancel(s|led)? (it|the delegation|a delegation)\b|cancellation/i);
    }
  });

  it("README and the docs explain that revoking a token leaves the delegation, which only the member revokes", () => {
    expect(README).toContain("Revoking a token is not revoking the delegation.");
    expect(read("docs/operating.md")).toMatch(/ends that token only: the delegation lives on/);
    expect(read("content/docs/service-auth.md")).toMatch(/revokes that one access token only: the delegation lives on/);
  });

  it("the systemd recipe installs with deploy/install.sh (tested in a temporary root), never a copy of the whole checkout", () => {
    const systemd = read("docs/systemd.md");
    expect(systemd).toContain("sudo sh deploy/install.sh");
    expect(systemd).not.toMatch(/cp -a \.|chown agent-gate:agent-gate \/opt/);
  });

  it("one key recipe: every document makes a signing key with npm run -s keys:new", () => {
    // content/docs/dpop.md shows an agent making its own proof key in its own client: that key never reaches the service.
    const serviceKeyDocuments = [...DOCUMENTS, ...PUBLISHED].filter((doc) => doc !== "content/docs/dpop.md");
    for (const doc of serviceKeyDocuments) expect(read(doc), doc).not.toMatch(/generateKeyPair\(|exportJWK\(/);
    expect(read("content/docs/dpop.md")).not.toMatch(/SIGNING_KEYS|keys:new/);
    expect(read("docs/security.md")).toContain("One recipe makes a key: `npm run -s keys:new`");
  });

  it("the TRUSTED_PROXY row says which start refuses `none` (tests/http/caller-scope.test.ts refuses it bare, start-refusals.test.ts starts npm start with it)", () => {
    const row = configurationVariables().find((variable) => variable.name === "TRUSTED_PROXY")!;
    expect(row.description).toMatch(/a bare `next start` cannot, assumes the nearest hop is a proxy, and so refuses `none` at a production start; npm start accepts `none`/);
  });

  it("docs/vercel.md names the Node version and package.json's engines as they are", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    const vercel = read("docs/vercel.md");
    expect(vercel).toContain(`(\`${engines}\`)`);
    expect(vercel).toMatch(/select \*\*24\.x\*\*/);
    expect(vercel).toContain("## The first member");
    expect(vercel).toContain("`RELEASE_MODE`");
  });
});
