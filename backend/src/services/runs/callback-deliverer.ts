// Signed callbacks: when a run with a callback URL ends, its result is POSTed there, signed with
// the secret of the API key that started it, and retried with back-off; every attempt is recorded.
import { setTimeout as sleep } from "node:timers/promises";
import type { EgressClient } from "../../core/egress/egress-client.js";
import type { Logger } from "../../core/logging.js";
import { signCallback } from "../../core/security.js";
import type { ApiKeyRepository } from "../../repositories/api-key.repository.js";
import type { CallbackDeliveryRepository } from "../../repositories/callback-delivery.repository.js";
import type { RunRepository } from "../../repositories/run.repository.js";
import { checkCallbackUrl } from "./callback-target.js";

export const CALLBACK_SIGNATURE_HEADER = "X-Studio-Signature";
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface CallbackDelivererDeps {
  runs: RunRepository;
  apiKeys: ApiKeyRepository;
  deliveries: CallbackDeliveryRepository;
  /** Every delivery connects through the egress policy. */
  egress: EgressClient;
  /** Delays before each retry; one more attempt than there are delays. */
  backoffMs: number[];
  logger: Logger;
}

export class CallbackDeliverer {
  readonly #deps: CallbackDelivererDeps;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(deps: CallbackDelivererDeps) {
    this.#deps = deps;
  }

  /** Starts delivering in the background; the run's worker does not wait for the receiver. */
  deliver(runId: string): void {
    const job = this.#deliver(runId).catch((error: unknown) =>
      this.#deps.logger.warn({ err: error, runId }, "callback failed"),
    );
    this.#inFlight.add(job);
    void job.finally(() => this.#inFlight.delete(job));
  }

  async idle(): Promise<void> {
    await Promise.all([...this.#inFlight]);
  }

  async #deliver(runId: string): Promise<void> {
    const { runs, apiKeys, deliveries, egress, backoffMs } = this.#deps;
    const run = await runs.findById(runId);
    if (!run?.callback_url || !run.api_key_id) return;
    const key = await apiKeys.findById(run.api_key_id);
    if (!key?.callback_secret) return;
    const body = JSON.stringify({
      run_id: run.id,
      workflow_id: run.workflow_id,
      workflow_version: run.workflow_version,
      status: run.status,
      output: run.output === null ? null : JSON.parse(run.output),
      error: run.error === null ? null : JSON.parse(run.error),
      finished_at: run.finished_at,
    });
    for (let attempt = 1; attempt <= backoffMs.length + 1; attempt++) {
      let statusCode: number | null = null;
      let error: string | null = null;
      try {
        const url = await checkCallbackUrl(run.callback_url, egress);
        const signature = signCallback(key.callback_secret, body, Math.floor(Date.now() / 1000));
        const response = await egress.fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            [CALLBACK_SIGNATURE_HEADER]: signature,
            "X-Studio-Run-Id": run.id,
          },
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        statusCode = response.status;
        await response.body?.cancel();
      } catch (failure) {
        error = failure instanceof Error ? failure.message : String(failure);
      }
      await deliveries.record({ runId, url: run.callback_url, attempt, statusCode, error });
      if (statusCode !== null && statusCode >= 200 && statusCode < 300) return;
      const wait = backoffMs[attempt - 1];
      if (wait === undefined) return;
      await sleep(wait);
    }
  }
}
