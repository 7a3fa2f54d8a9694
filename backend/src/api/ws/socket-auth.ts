// The sign-in of one editor socket. The credential is checked again before every message (a
// revoked API key or a deleted user is refused at once), and the socket is closed when a session
// token expires or an API key is revoked in this process, without waiting for a message.
import type { Actor } from "../../core/authz.js";
import { AppError, type ErrorCode } from "../../core/errors.js";
import type { Container } from "../deps.js";

const CREDENTIAL_REFUSALS = new Set<ErrorCode>(["AUTH_INVALID_TOKEN", "AUTH_TOKEN_EXPIRED", "AUTH_REQUIRED"]);
// setTimeout takes at most 2^31-1 ms (about 24.8 days); a longer wait is done in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

export class SocketAuth {
  readonly #c: Container;
  readonly #onLapse: (error: AppError) => void;
  #authorization: string | null = null;
  #expiryTimer: NodeJS.Timeout | null = null;
  #unwatch: (() => void) | null = null;
  #lapsed = false;

  /** `onLapse` is called once when the credential stops being valid while the socket is open. */
  constructor(c: Container, onLapse: (error: AppError) => void) {
    this.#c = c;
    this.#onLapse = onLapse;
  }

  /** Signs the socket in (again) with a session token or an API key; throws when it is not valid. */
  async signIn(token: string): Promise<void> {
    const authorization = `Bearer ${token}`;
    const { actor, expiresAt } = await this.#c.auth.verifyCredential(authorization);
    this.#clear();
    this.#authorization = authorization;
    if (expiresAt) this.#armExpiry(expiresAt.getTime());
    const keyId = actor.via === "api_key" ? actor.apiKeyId : undefined;
    if (keyId) {
      this.#unwatch = this.#c.apiKeys.onRevoked((revoked) => {
        if (revoked === keyId) this.#lapse(new AppError("AUTH_INVALID_TOKEN"));
      });
    }
  }

  /**
   * The caller, after checking the credential again: AUTH_REQUIRED before sign-in; when the
   * credential is no longer valid, its error (and the socket lapses).
   */
  async actor(): Promise<Actor> {
    const authorization = this.#authorization;
    if (!authorization || this.#lapsed) throw new AppError("AUTH_REQUIRED");
    try {
      return (await this.#c.auth.verifyCredential(authorization, { touch: false })).actor;
    } catch (error) {
      // Only a verdict on the credential ends the socket; a failure to check it (the database
      // not answering) refuses this message alone.
      if (!(error instanceof AppError) || !CREDENTIAL_REFUSALS.has(error.code)) throw error;
      this.#lapse(error);
      throw new LapsedError(error);
    }
  }

  /** Stops the timers and listeners (the socket closed). */
  close(): void {
    this.#clear();
  }

  #armExpiry(expiresAtMs: number): void {
    const wait = expiresAtMs - Date.now();
    if (wait <= 0) {
      this.#lapse(new AppError("AUTH_TOKEN_EXPIRED"));
      return;
    }
    this.#expiryTimer = setTimeout(() => this.#armExpiry(expiresAtMs), Math.min(wait, MAX_TIMER_MS));
    this.#expiryTimer.unref();
  }

  #lapse(error: AppError): void {
    if (this.#lapsed) return;
    this.#lapsed = true;
    this.#clear();
    this.#onLapse(error);
  }

  #clear(): void {
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.#expiryTimer = null;
    this.#unwatch?.();
    this.#unwatch = null;
  }
}

/** A message refused because the credential lapsed; the socket is already being closed. */
export class LapsedError extends Error {
  readonly reason: AppError;

  constructor(reason: AppError) {
    super(reason.message);
    this.reason = reason;
  }
}
