// Installs the workspace dependencies when they are missing or older than the lock file, after
// checking that this Node.js is new enough. Plain Node, no dependencies: it runs before install.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 15)) {
  console.error(`Superstep needs Node.js 22.15 or newer (24 LTS recommended); this is ${process.version}.`);
  process.exit(1);
}

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);
const installed = mtime(`${root}node_modules/.package-lock.json`);
const wanted = Math.max(
  ...["package.json", "package-lock.json", "backend/package.json", "frontend/package.json"].map((p) => mtime(root + p)),
);
if (installed === 0 || installed < wanted) {
  console.log("Installing dependencies…");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["install", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
