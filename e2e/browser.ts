// Launches the system Chromium (Debian's package) through playwright-core; there is no
// bundled browser download on our machines. CHROMIUM_PATH overrides the location.
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";

export const SCREENSHOT_DIR = fileURLToPath(new URL("../test-results/screenshots/", import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
