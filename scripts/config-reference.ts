// npm run -s docs:config: writes docs/configuration.md from the settings' descriptions (lib/startup/reference.ts).
import fs from "node:fs";
import path from "node:path";
import { configurationReferenceMarkdown } from "@/lib/startup/reference";
import { ROOT } from "./lib";

const file = path.join(ROOT, "docs", "configuration.md");
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, configurationReferenceMarkdown());
console.log(`docs:config: wrote ${path.relative(ROOT, file)}`);
