import { EventEmitter } from "node:events";
import { type Actor, assertSession } from "../core/authz.js";
import { AppError } from "../core/errors.js";
import { generateApiKey, generateCallbackSecret, hashApiKey } from "../core/security.js";
import type { ApiKeyRow } from "../models/database.model.js";
import type { ApiKeyRepository } from "../repositories/api-key.repository.js";
import type { ApiKeyView, CreateApiKeyBody, CreatedApiKeyView } from "../schemas/api-key.schema.js";
import type { PaginationQuery } from "../schemas/common.schema.js";
import { type Page, toPage } from "./page.js";

const SHOWN_PREFIX_LENGTH = 12;

function toView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    callback_secret: row.callback_secret,
  };
}

export class ApiKeyService {
  readonly #apiKeys: ApiKeyRepository;
  // Tells open sockets signed in with a key that it was revoked in this process.
  readonly #revocations = new EventEmitter().setMaxListeners(0);

  constructor(deps: { apiKeys: ApiKeyRepository }) {
    this.#apiKeys = deps.apiKeys;
  }

  // Managing keys needs a signed-in user: a leaked key must not be able to mint more keys.
  async create(actor: Actor, body: CreateApiKeyBody): Promise<CreatedApiKeyView> {
    assertSession(actor);
    const key = generateApiKey();
    const row = await this.#apiKeys.create({
      userId: actor.userId,
      name: body.name,
      prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
      keyHash: hashApiKey(key),
      callbackSecret: generateCallbackSecret(),
    });
    return { ...toView(row), key };
  }

  async list(actor: Actor, page: PaginationQuery): Promise<Page<ApiKeyView>> {
    assertSession(actor);
    const rows = await this.#apiKeys.listByUser(actor.userId, page.limit + 1, page.offset);
    return toPage(rows.map(toView), page);
  }

  async revoke(actor: Actor, id: string): Promise<ApiKeyView> {
    assertSession(actor);
    const row = await this.#apiKeys.findById(id);
    if (!row || row.user_id !== actor.userId) throw new AppError("API_KEY_NOT_FOUND");
    const revoked = await this.#apiKeys.revoke(id);
    if (!revoked) throw new AppError("API_KEY_NOT_FOUND");
    this.#revocations.emit("revoked", id);
    return toView(revoked);
  }

  /** Calls `listener` with the id of each key revoked through this service; returns an unsubscribe. */
  onRevoked(listener: (keyId: string) => void): () => void {
    this.#revocations.on("revoked", listener);
    return () => this.#revocations.off("revoked", listener);
  }
}
