// The runs page in a browser, against the real studio: runs started by hooks are listed, filtered
// by status, trigger and id, open in the editor on the version they ran with their trace replayed,
// and two of them compare side by side. Both languages.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gate, gatedWorkflow, startGate } from "../backend/test/engine-harness.js";
import { api, createWorkflow, type Lang, openContext, screenshot, seriousViolations, storeSession } from "./studio.js";
import { studioSuite } from "./studio-suite.js";

const TRIAGE = JSON.parse(readFileSync(new URL("../examples/triage.json", import.meta.url), "utf8")) as {
  name: string;
  nodes: { id: string; data: Record<string, unknown> }[];
};

const TEXT = {
  en: {
    none: "No run matches these filters.",
    banner: "version 1",
    noErrors: "0% errors",
    submit: "Send and continue",
  },
  vi: {
    none: "Không có lần chạy nào khớp bộ lọc.",
    banner: "phiên bản 1",
    noErrors: "0% lỗi",
    submit: "Gửi và chạy tiếp",
  },
} as const;

describe("the runs page in a browser", () => {
  // Hook runs may call a local gate that holds them running until the test lets them go.
  const suite = studioSuite({ env: { STUDIO_EGRESS_ALLOW: "127.0.0.1" } });
  let gate: Gate;
  beforeAll(async () => {
    gate = await startGate();
  });
  afterAll(async () => {
    gate.open();
    await gate.close();
  });

  async function hookKey(name: string): Promise<string> {
    return (await api<{ key: string }>(suite.studio, "POST", "/api/api-keys", { token: suite.token, body: { name } }))
      .body.data?.key as string;
  }

  async function triggerHook(key: string, workflowId: string, input: object): Promise<string> {
    const response = await fetch(`${suite.studio.url}/api/hooks/workflows/${workflowId}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ input }),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { data: { run_id: string } }).data.run_id;
  }

  async function waitForRun(runId: string, statuses: string[]) {
    await expect
      .poll(
        async () =>
          (await api<{ status: string }>(suite.studio, "GET", `/api/runs/${runId}`, { token: suite.token })).body.data
            ?.status,
        {
          timeout: 60_000,
          interval: 200,
        },
      )
      .toSatisfy((status: string | undefined) => status !== undefined && statuses.includes(status));
  }

  it.each(["en", "vi"] as const)(
    "filters runs, opens one on the version it ran, and compares two (%s)",
    async (lang: Lang) => {
      const workflow = await createWorkflow<{ id: string; document: unknown }>(suite.studio, suite.token, {
        ...TRIAGE,
        name: `Triage ${lang}`,
      });
      const key = await hookKey(`hooks ${lang}`);
      const trigger = (message: string) => triggerHook(key, workflow.id, { message });
      const urgent = await trigger("urgent refund please");
      const normal = await trigger("where is my parcel?");
      await waitForRun(urgent, ["waiting"]);
      await waitForRun(normal, ["ok"]);
      // A newer version is saved after the runs: each run still opens on version 1.
      const renamed = {
        ...TRIAGE,
        name: `Triage ${lang}`,
        nodes: TRIAGE.nodes.map((n) => (n.id === "classify" ? { ...n, data: { ...n.data, label: "Classify v2" } } : n)),
      };
      expect(
        (await api(suite.studio, "PUT", `/api/workflows/${workflow.id}`, { token: suite.token, body: renamed })).status,
      ).toBe(200);

      const { context, page } = await openContext(suite.browser, { lang });
      try {
        await storeSession(page, suite.studio, suite.token);
        await page.goto(`${suite.studio.url}/runs?workflow=${workflow.id}`);
        const rows = page.getByTestId("run-row");
        await expect.poll(() => rows.count()).toBe(2);
        await page.getByTestId("runs-filter-status").selectOption("ok");
        await expect.poll(() => rows.count()).toBe(1);
        expect(await rows.first().getAttribute("data-run-id")).toBe(normal);
        await page.getByTestId("runs-filter-status").selectOption("");
        await page.getByTestId("runs-filter-trigger").selectOption("editor");
        await expect.poll(() => page.getByTestId("runs-page").textContent()).toContain(TEXT[lang].none);
        await page.getByTestId("runs-filter-trigger").selectOption("api");
        // Each row shows its id's end (a run id starts with its time), and the filter finds a run by it.
        for (const id of [urgent, normal]) {
          expect(await page.locator(`[data-run-id="${id}"]`).getByTestId("run-open").textContent()).toBe(id.slice(-8));
        }
        await page.getByTestId("runs-filter-id").fill(urgent.slice(-8).toUpperCase());
        await expect.poll(() => rows.count()).toBe(1);
        expect(await rows.first().getAttribute("data-run-id")).toBe(urgent);
        await page.getByTestId("runs-filter-id").fill("");
        await expect.poll(() => rows.count()).toBe(2);
        expect(await seriousViolations(page)).toEqual([]);
        await screenshot(page, `runs-page-${lang}`);

        // Compare the two runs: their priority differs.
        for (const id of [urgent, normal]) await page.locator(`[data-run-id="${id}"] input[type=checkbox]`).check();
        await page.getByTestId("runs-compare").click();
        const priority = page.getByTestId("compare-state-priority");
        await expect.poll(() => priority.getAttribute("data-equal")).toBe("false");
        expect(await priority.textContent()).toContain("urgent");
        await page.keyboard.press("Escape");

        // Open the finished run: the canvas shows version 1 with the run's trace replayed.
        await page.locator(`[data-run-id="${normal}"]`).getByTestId("run-open").click();
        await page.locator('[data-testid="run-status"][data-status="ok"]').waitFor({ timeout: 30_000 });
        expect(await page.getByTestId("canvas-preview-banner").textContent()).toContain(TEXT[lang].banner);
        await page.locator(".react-flow__controls-fitview").click();
        await expect
          .poll(() => page.getByTestId("canvas-node-run-classify").getAttribute("data-run-status"))
          .toBe("ok");
        expect(await page.getByTestId("canvas-node-classify").textContent()).not.toContain("Classify v2");
        await page.getByTestId("run-tab-trace").click();
        await expect.poll(() => page.getByTestId("trace-count").textContent()).toMatch(/3/);
        await screenshot(page, `runs-opened-${lang}`);
        // The heat map over the last runs: Classify ran in both, without an error.
        await page.getByTestId("run-stats-toggle").check();
        await expect
          .poll(() => page.getByTestId("canvas-node-stat-classify").textContent())
          .toContain(TEXT[lang].noErrors);
      } finally {
        await context.close();
      }
    },
  );

  it.each(["en", "vi"] as const)(
    "answers a waiting hook run and cancels a running one, each opened from the runs page (%s)",
    async (lang: Lang) => {
      const key = await hookKey(`resume and cancel ${lang}`);
      const triage = await createWorkflow<{ id: string }>(suite.studio, suite.token, {
        ...TRIAGE,
        name: `Answer ${lang}`,
      });
      const held = await createWorkflow<{ id: string }>(
        suite.studio,
        suite.token,
        gatedWorkflow(gate.url, `held-${lang}`),
      );
      const waiting = await triggerHook(key, triage.id, { message: "urgent: broken order" });
      const arrivals = gate.arrivals.length;
      const running = await triggerHook(key, held.id, {});
      await waitForRun(waiting, ["waiting"]);
      await gate.arrived(arrivals + 1);

      const { context, page } = await openContext(suite.browser, { lang });
      try {
        await storeSession(page, suite.studio, suite.token);
        // The waiting run: its form is in the panel; the answer resumes it to the end.
        await page.goto(`${suite.studio.url}/runs?workflow=${triage.id}`);
        await page.locator(`[data-run-id="${waiting}"]`).getByTestId("run-open").click();
        const form = page.getByTestId("human-form");
        await form.waitFor({ timeout: 30_000 });
        await form.getByLabel("approved").check();
        await form.getByRole("button", { name: TEXT[lang].submit }).click();
        await page.locator('[data-testid="run-status"][data-status="ok"]').waitFor({ timeout: 60_000 });
        await waitForRun(waiting, ["ok"]);

        // The running run: Cancel ends it, and the call it was making is never answered.
        await page.goto(`${suite.studio.url}/runs?workflow=${held.id}`);
        await page.locator(`[data-run-id="${running}"]`).getByTestId("run-open").click();
        await page.locator('[data-testid="run-status"][data-status="running"]').waitFor({ timeout: 30_000 });
        await page.getByTestId("run-cancel").click();
        await page.locator('[data-testid="run-status"][data-status="cancelled"]').waitFor({ timeout: 60_000 });
        await waitForRun(running, ["cancelled"]);
        await screenshot(page, `runs-cancelled-${lang}`);
      } finally {
        await context.close();
      }
    },
  );
});
