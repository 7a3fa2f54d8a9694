// Signed callbacks: when a run with a callback URL ends, its ending writes a row in the callback
// outbox (same transaction). This loop delivers due rows: it claims one (so no other process sends
// the same attempt), POSTs the run's result signed with the secret of the API key that started
// it, records the attempt and schedules the retry with back-off. Pending rows survive a restart
// and are delivered by whichever server runs next.
import type { EgressClient } from "../../core/egress/egress-client.js";
import type { Logger } from "../../core/logging.js";
import { signCallback } from "../../core/security.js";
import type { RunRow } from "../../models/database.model.js";
import type { ApiKeyRepository } from "../../repositories/api-key.repository.js";
import type {
  AttemptVerdict,
  CallbackOutboxRepository,
  ClaimedDelivery,
} from "../../repositories/callback-outbox.repository.js";
import type { RunRepository } from "../../repositories/run.repository.js";
import type { BackgroundMonitor } from "../background-monitor.js";
import { checkCallbackUrl } from "./callback-target.js";

export const CALLBACK_SIGNATURE_HEADER = "X-Studio-Signature";
const ATTEMPT_TIMEOUT_MS = 10_000;
// A claim outlives the longest attempt, so it only lapses when its process died mid-attempt.
const CLAIM_MS = 3 * ATTEMPT_TIMEOUT_MS;
// Rows due at once handled by one pass.
const BATCH = 20;

export interface CallbackDelivererDeps {
  runs: RunRepository;
  apiKeys: ApiKeyRepository;
  outbox: CallbackOutboxRepository;
  /** Every delivery connects through the egress policy. */
  egress: EgressClient;
  /** Delays before each retry; one more attempt than there are delays. */
  backoffMs: number[];
  logger: Logger;
  monitor: BackgroundMonitor;
  /** Who claims rows (this process). */
  owner: string;
  /** The longest the loop sleeps: rows another server queued are found at least this often. */
  pollMs?: number;
}

export class CallbackDeliverer {
  readonly #deps: CallbackDelivererDeps;
  readonly #pollMs: number;
  readonly #inFlight = new Set<Promise<void>>();
  #started = false;
  #timer: NodeJS.Timeout | null = null;
  /** The pass under way, if any. */
  #pass: Promise<void> | null = null;
  /** A kick came while a pass ran: run another one right after it. */
  #again = false;
  /** Resolved after each pass (tests wait on it). */
  #passWaiters: (() => void)[] = [];

  constructor(deps: CallbackDelivererDeps) {
    this.#deps = deps;
    this.#pollMs = deps.pollMs ?? 5000;
  }

  /** Starts the delivery loop; its first pass delivers whatever a restart left pending. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#schedule(0);
  }

  /** A run ended (its outbox row is written): look for due deliveries now. */
  kick(): void {
    if (!this.#started) return;
    if (this.#pass) this.#again = true;
    else this.#schedule(0);
  }

  /** Stops the loop and waits for the attempts in flight; pending rows stay in the outbox. */
  async stop(): Promise<void> {
    this.#started = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#pass;
    await Promise.all([...this.#inFlight]);
  }

  /** Resolves once no delivery is pending in the outbox (tests). */
  async idle(): Promise<void> {
    for (;;) {
      await this.#pass;
      await Promise.all([...this.#inFlight]);
      if (!this.#started || (await this.#deps.outbox.pendingCount()) === 0) return;
      await new Promise<void>((resolve) => this.#passWaiters.push(resolve));
    }
  }

  #schedule(delayMs: number): void {
    if (!this.#started) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#pass = this.#runPass().finally(() => {
        this.#pass = null;
        for (const resolve of this.#passWaiters.splice(0)) resolve();
      });
    }, delayMs);
    this.#timer.unref();
  }

  async #runPass(): Promise<void> {
    const { outbox, monitor } = this.#deps;
    let wakeIn = this.#pollMs;
    try {
      const now = new Date();
      const due = await outbox.due(now.toISOString(), BATCH);
      await Promise.all(due.map((runId) => this.#track(this.#attempt(runId))));
      const next = await outbox.nextDueAt();
      if (next !== null) wakeIn = Math.min(wakeIn, Math.max(0, Date.parse(next) - Date.now()));
    } catch (error) {
      monitor.failed("callbacks", "callback deliveries could not be read: the database did not answer", error);
    }
    if (this.#again) {
      this.#again = false;
      wakeIn = 0;
    }
    this.#schedule(wakeIn);
  }

  #track(job: Promise<void>): Promise<void> {
    this.#inFlight.add(job);
    return job.finally(() => this.#inFlight.delete(job));
  }

  /** One attempt at one due row, if this process wins its claim. */
  async #attempt(runId: string): Promise<void> {
    const { runs, apiKeys, outbox, logger, monitor, owner, backoffMs } = this.#deps;
    try {
      const now = Date.now();
      const delivery = await outbox.claim(
        runId,
        owner,
        new Date(now).toISOString(),
        new Date(now + CLAIM_MS).toISOString(),
      );
      if (!delivery) return;
      const run = await runs.findById(runId);
      const key = run?.api_key_id ? await apiKeys.findById(run.api_key_id) : undefined;
      if (!run || !key?.callback_secret) {
        // Nothing can sign it (the key was deleted): given up, and said so.
        logger.warn({ runId }, "callback not sent: the API key that started the run is gone");
        await outbox.finishAttempt(delivery, { statusCode: null, error: "no signing key" }, { kind: "failed" });
        return;
      }
      const result = await this.#post(run, delivery, key.callback_secret);
      const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      const wait = backoffMs[delivery.attempt - 1];
      const verdict: AttemptVerdict = ok
        ? { kind: "delivered" }
        : wait === undefined
          ? { kind: "failed" }
          : { kind: "retry", at: new Date(Date.now() + wait).toISOString() };
      if (!(await outbox.finishAttempt(delivery, result, verdict))) {
        logger.warn({ runId, attempt: delivery.attempt }, "callback attempt not recorded: its claim lapsed");
      } else if (verdict.kind === "failed") {
        logger.warn({ runId, attempts: delivery.attempt }, "callback given up after its last attempt");
      }
    } catch (error) {
      // The row keeps its claim until it lapses; then this or another server tries again.
      monitor.failed("callbacks", "callback delivery failed", error, { runId });
    }
  }

  async #post(
    run: RunRow,
    delivery: ClaimedDelivery,
    secret: string,
  ): Promise<{ statusCode: number | null; error: string | null }> {
    const { egress } = this.#deps;
    const body = JSON.stringify({
      run_id: run.id,
      workflow_id: run.workflow_id,
      workflow_version: run.workflow_version,
      status: run.status,
      output: run.output === null ? null : JSON.parse(run.output),
      error: run.error === null ? null : JSON.parse(run.error),
      finished_at: run.finished_at,
    });
    try {
      const url = await checkCallbackUrl(delivery.url, egress);
      const signature = signCallback(secret, body, Math.floor(Date.now() / 1000));
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
      await response.body?.cancel();
      return { statusCode: response.status, error: null };
    } catch (failure) {
      return { statusCode: null, error: failure instanceof Error ? failure.message : String(failure) };
    }
  }
}
