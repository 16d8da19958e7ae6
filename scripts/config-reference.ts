// npm run -s docs:config: writes docs/configuration.md from the settings' descriptions (lib/startup/reference.ts), and
// README's short table of what a deployment must set (the table that starts `| variable | set it |`).
import fs from "node:fs";
import path from "node:path";
import { configurationReferenceMarkdown, deploymentTableMarkdown } from "@/lib/startup/reference";
import { ROOT } from "./lib";

const file = path.join(ROOT, "docs", "configuration.md");
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, configurationReferenceMarkdown());
console.log(`docs:config: wrote ${path.relative(ROOT, file)}`);

const readme = path.join(ROOT, "README.md");
const text = fs.readFileSync(readme, "utf8");
const table = /^\| variable \| set it \|\n(?:\|.*\n)*/m;
if (!table.test(text)) {
  console.error("docs:config: README.md has no table starting `| variable | set it |`: add one where the deployment's settings go");
  process.exitCode = 1;
} else {
  fs.writeFileSync(readme, text.replace(table, `${deploymentTableMarkdown()}\n`));
  console.log("docs:config: wrote README.md's table of what a deployment must set");
}
