import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertBuilt,
  reapStudioProcesses,
  type StudioProcess,
  startStudioProcess,
} from "../backend/test/studio-process.js";
import { launchBrowser, SCREENSHOT_DIR } from "./browser.js";

describe("the studio home page in a browser", () => {
  let studio: StudioProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    assertBuilt();
    dataDir = mkdtempSync(join(tmpdir(), "superstep-e2e-"));
    studio = await startStudioProcess({ STUDIO_DATA_DIR: dataDir });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await reapStudioProcesses();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("shows the server status and that the owner account is still to be created", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(studio.url);
    await expect.poll(() => page.getByTestId("health-db").textContent()).toBe("sqlite");
    expect(await page.getByTestId("setup-state").textContent()).toContain("No account exists yet");
    await page.screenshot({ path: join(SCREENSHOT_DIR, "home-en.png"), fullPage: true });
    expect(errors).toEqual([]);
  });

  it("switches to Vietnamese and remembers the choice", async () => {
    const page = await browser.newPage();
    await page.goto(studio.url);
    await page.getByLabel("Language").selectOption("vi");
    await expect.poll(() => page.getByRole("heading", { level: 2 }).textContent()).toBe("Trạng thái máy chủ");
    await page.reload();
    await expect.poll(() => page.getByRole("heading", { level: 2 }).textContent()).toBe("Trạng thái máy chủ");
    await page.screenshot({ path: join(SCREENSHOT_DIR, "home-vi.png"), fullPage: true });
  });

  it("reports the owner account once setup is done", async () => {
    const setup = await fetch(`${studio.url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", password: "owner-password" }),
    });
    expect(setup.status).toBe(201);
    const page = await browser.newPage();
    await page.goto(studio.url);
    await expect.poll(() => page.getByTestId("setup-state").textContent()).toContain("The owner account exists");
  });

  it("serves the API reference page", async () => {
    const page = await browser.newPage();
    await page.goto(`${studio.url}/api/docs`);
    await expect.poll(() => page.locator(".swagger-ui .title").first().textContent()).toContain("Superstep API");
    await page.screenshot({ path: join(SCREENSHOT_DIR, "api-docs.png") });
  });
});
