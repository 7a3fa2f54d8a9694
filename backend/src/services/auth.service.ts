// Accounts and sign-in: first-time setup, optional sign-up, login, and turning a bearer
// credential (session token or API key) into an Actor.
import type { Actor } from "../core/authz.js";
import { AppError } from "../core/errors.js";
import {
  API_KEY_PREFIX,
  hashApiKey,
  hashPassword,
  type TokenSigner,
  verifyDecoyPassword,
  verifyPassword,
} from "../core/security.js";
import type { ApiKeyRepository } from "../repositories/api-key.repository.js";
import type { NewUser, UserRepository } from "../repositories/user.repository.js";
import type { CredentialsBody, RegisterBody, SessionView, UserView } from "../schemas/auth.schema.js";
import { toUserView } from "./user-view.js";

export interface VerifiedCredential {
  actor: Actor;
  /** When a session token expires; null for an API key (valid until revoked). */
  expiresAt: Date | null;
}

export interface AuthStatus {
  setup_required: boolean;
  signup_allowed: boolean;
}

export class AuthService {
  readonly #users: UserRepository;
  readonly #apiKeys: ApiKeyRepository;
  readonly #tokens: TokenSigner;
  readonly #allowSignup: boolean;

  constructor(deps: { users: UserRepository; apiKeys: ApiKeyRepository; tokens: TokenSigner; allowSignup: boolean }) {
    this.#users = deps.users;
    this.#apiKeys = deps.apiKeys;
    this.#tokens = deps.tokens;
    this.#allowSignup = deps.allowSignup;
  }

  async status(): Promise<AuthStatus> {
    return { setup_required: (await this.#users.count()) === 0, signup_allowed: this.#allowSignup };
  }

  /** Creates the owner account; only while no user exists. */
  async setup(body: RegisterBody): Promise<SessionView> {
    if ((await this.#users.count()) > 0) throw new AppError("SETUP_ALREADY_DONE");
    return this.#createAndSignIn({ ...body, role: "owner" }, true);
  }

  async register(body: RegisterBody): Promise<SessionView> {
    if (!this.#allowSignup) throw new AppError("SIGNUP_DISABLED");
    if ((await this.#users.count()) === 0) throw new AppError("SETUP_REQUIRED");
    return this.#createAndSignIn({ ...body, role: "member" }, false);
  }

  async login(body: CredentialsBody): Promise<SessionView> {
    const user = await this.#users.findByEmail(body.email);
    if (!user) {
      await verifyDecoyPassword(body.password);
      throw new AppError("AUTH_INVALID_CREDENTIALS");
    }
    if (!(await verifyPassword(user.password_hash, body.password))) throw new AppError("AUTH_INVALID_CREDENTIALS");
    return { token: await this.#tokens.sign(user.id), user: toUserView(user) };
  }

  /** The owner account, acting for local tools (the CLI) on this server's data; null before setup. */
  async ownerActor(): Promise<Actor | null> {
    const owner = await this.#users.findOwner();
    return owner ? { userId: owner.id, role: owner.role, via: "session" } : null;
  }

  async me(actor: Actor): Promise<UserView> {
    const user = await this.#users.findById(actor.userId);
    if (!user) throw new AppError("AUTH_INVALID_TOKEN");
    return toUserView(user);
  }

  /** The caller behind an Authorization header value, or an error saying what is wrong. */
  async authenticate(authorization: string | undefined): Promise<Actor> {
    return (await this.verifyCredential(authorization)).actor;
  }

  /**
   * The caller behind a bearer credential and when it stops being valid (a session token's expiry;
   * null for an API key, valid until revoked). `touch: false` checks it again without recording a use.
   */
  async verifyCredential(
    authorization: string | undefined,
    options: { touch: boolean } = { touch: true },
  ): Promise<VerifiedCredential> {
    if (!authorization) throw new AppError("AUTH_REQUIRED");
    const match = /^Bearer +(\S+)$/i.exec(authorization.trim());
    if (!match?.[1]) throw new AppError("AUTH_INVALID_TOKEN");
    const credential = match[1];
    if (credential.startsWith(API_KEY_PREFIX)) {
      return { actor: await this.#authenticateApiKey(credential, options.touch), expiresAt: null };
    }
    const { userId, expiresAt } = await this.#tokens.verify(credential);
    const user = await this.#users.findById(userId);
    if (!user) throw new AppError("AUTH_INVALID_TOKEN");
    return { actor: { userId: user.id, role: user.role, via: "session" }, expiresAt };
  }

  /** Hooks accept API keys only: they are for other systems, not for people's sessions. */
  async authenticateApiKey(authorization: string | undefined): Promise<Actor> {
    if (!authorization) throw new AppError("AUTH_REQUIRED");
    const match = /^Bearer +(\S+)$/i.exec(authorization.trim());
    if (!match?.[1]?.startsWith(API_KEY_PREFIX)) throw new AppError("AUTH_API_KEY_REQUIRED");
    return this.#authenticateApiKey(match[1]);
  }

  async #authenticateApiKey(key: string, touch = true): Promise<Actor> {
    const row = await this.#apiKeys.findActiveByHash(hashApiKey(key));
    if (!row) throw new AppError("AUTH_INVALID_TOKEN");
    // Recorded to the minute: a key used again within it (every hook of a busy caller) writes nothing.
    if (touch && !usedWithin(row.last_used_at, LAST_USED_RESOLUTION_MS)) await this.#apiKeys.markUsed(row.id);
    return { userId: row.user_id, role: row.owner_role, via: "api_key", apiKeyId: row.id };
  }

  async #createAndSignIn(body: RegisterBody & { role: NewUser["role"] }, onlyIfNone: boolean): Promise<SessionView> {
    const passwordHash = await hashPassword(body.password);
    const result = await this.#users.create(
      { email: body.email, name: body.name ?? null, passwordHash, role: body.role },
      { onlyIfNone },
    );
    if (!result.ok) throw new AppError(result.reason === "email_taken" ? "EMAIL_TAKEN" : "SETUP_ALREADY_DONE");
    return { token: await this.#tokens.sign(result.user.id), user: toUserView(result.user) };
  }
}

const LAST_USED_RESOLUTION_MS = 60_000;

function usedWithin(lastUsedAt: string | null, ms: number): boolean {
  return lastUsedAt !== null && Date.now() - Date.parse(lastUsedAt) < ms;
}
