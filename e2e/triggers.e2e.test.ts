// Triggers in a browser, against the real studio: an API key is shown once and can be revoked
// (a hook with it is then refused); a workflow's Triggers tab gives a hook call with its real
// inputs (answered at once, or once the run ends), and a schedule's cron shows its next five fire
// times in the chosen time zone, refuses an invalid or too frequent expression with its message,
// and is saved. Both languages.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createWorkflow, type Lang, openContext, screenshot, seriousViolations, storeSession } from "./studio.js";
import { studioSuite } from "./studio-suite.js";

const TRIAGE = JSON.parse(readFileSync(new URL("../examples/triage.json", import.meta.url), "utf8")) as object;
const messages = (lang: Lang) =>
  (
    JSON.parse(readFileSync(new URL(`../frontend/src/locales/${lang}.json`, import.meta.url), "utf8")) as {
      errors: Record<string, string>;
    }
  ).errors;

describe("triggers in a browser", () => {
  const suite = studioSuite();

  it.each(["en", "vi"] as const)("shows a new API key once, and revokes it (%s)", async (lang) => {
    const workflow = await createWorkflow<{ id: string }>(suite.studio, suite.token, {
      ...TRIAGE,
      name: `Keys ${lang}`,
    });
    const { context, page } = await openContext(suite.browser, { lang });
    try {
      await storeSession(page, suite.studio, suite.token);
      await page.goto(`${suite.studio.url}/api-keys`);
      await page.getByTestId("api-key-name").fill(`ci ${lang}`);
      await page.getByTestId("api-key-create").click();
      const key = (await page.getByTestId("api-key-value").textContent()) ?? "";
      expect(key.length).toBeGreaterThan(20);
      const row = page.getByTestId("api-key-row").filter({ hasText: `ci ${lang}` });
      await expect
        .poll(async () =>
          key.startsWith(((await row.getByTestId("api-key-prefix").textContent()) ?? "x").replace("…", "")),
        )
        .toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByTestId("api-key-done").click();
      await page.reload();
      await row.waitFor();
      expect(await page.getByTestId("api-keys-page").textContent()).not.toContain(key);
      const hook = () =>
        fetch(`${suite.studio.url}/api/hooks/workflows/${workflow.id}/runs`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ input: { message: "hi" } }),
        });
      expect((await hook()).status).toBe(202);
      await row.getByTestId("api-key-revoke").click();
      await page.getByRole("alertdialog").getByRole("button").last().click();
      await expect.poll(() => row.getAttribute("data-revoked")).toBe("true");
      expect((await hook()).status).toBe(401);
    } finally {
      await context.close();
    }
  });

  it.each(["en", "vi"] as const)(
    "gives a hook call with the workflow's inputs and schedules it with its next fire times (%s)",
    async (lang) => {
      const workflow = await createWorkflow<{ id: string }>(suite.studio, suite.token, {
        ...TRIAGE,
        name: `Schedules ${lang}`,
      });
      const { context, page } = await openContext(suite.browser, { lang });
      try {
        await storeSession(page, suite.studio, suite.token);
        await page.goto(`${suite.studio.url}/workflows/${workflow.id}`);
        await page.getByTestId("panel-tab-triggers").click();
        const example = page.getByTestId("hook-example");
        await expect.poll(() => example.textContent()).toContain(`/api/hooks/workflows/${workflow.id}/runs`);
        expect(await example.textContent()).toContain('"message"');
        await page.getByTestId("hook-language-python").click();
        expect(await example.textContent()).toContain("requests.post(");
        // Waiting for the result changes the call and says what comes back.
        await page.getByTestId("hook-wait").check();
        await expect.poll(() => example.textContent()).toContain(`/api/hooks/workflows/${workflow.id}/runs?wait=30`);
        expect(await example.textContent()).toContain("200 once it ends");
        await page.getByTestId("hook-wait").uncheck();
        await expect.poll(() => example.textContent()).not.toContain("?wait=");

        await page.getByTestId("schedule-timezone").selectOption("Asia/Tokyo");
        await page.getByTestId("schedule-cron").fill("30 8 * * *");
        const preview = page.getByTestId("schedule-preview");
        // 08:30 in Tokyo, shown in that zone, five times.
        await expect.poll(() => preview.locator("li").first().textContent()).toMatch(/8:30|08:30/);
        expect(await preview.locator("li").count()).toBe(5);
        await page.getByTestId("schedule-cron").fill("* * * * * *");
        await expect
          .poll(() => page.getByTestId("schedule-preview-error").textContent())
          .toBe(messages(lang).SCHEDULE_INTERVAL_TOO_SHORT);
        await page.getByTestId("schedule-cron").fill("61 * * * *");
        await expect
          .poll(() => page.getByTestId("schedule-preview-error").textContent())
          .toBe(messages(lang).SCHEDULE_CRON_INVALID);
        await page.getByTestId("schedule-cron").fill("30 8 * * *");
        await expect.poll(() => preview.locator("li").count()).toBe(5);
        await page.getByTestId("schedule-add").click();
        await expect.poll(() => page.getByTestId("schedule-row").count()).toBe(1);
        expect(await page.getByTestId("schedule-row").textContent()).toContain("Asia/Tokyo");
        await screenshot(page, `triggers-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});
