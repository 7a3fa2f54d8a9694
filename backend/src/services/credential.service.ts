// Stored credentials: sealed with the server's encryption key, bound to their id and owner,
// usable only by their owner's runs, and never returned by the API (only which fields are set).
import { randomUUID } from "node:crypto";
import { type Actor, assertSession } from "../core/authz.js";
import { AppError } from "../core/errors.js";
import { SecretBox } from "../core/secret-box.js";
import type { CredentialResolver } from "../engine/runtime/ports.js";
import type { CredentialRow } from "../models/database.model.js";
import type { CredentialRepository } from "../repositories/credential.repository.js";
import type { PaginationQuery } from "../schemas/common.schema.js";
import {
  type CreateCredentialBody,
  type CredentialData,
  type CredentialType,
  type CredentialView,
  credentialData,
  type StoredCredential,
  type UpdateCredentialBody,
} from "../schemas/credential.schema.js";
import { type Page, toPage } from "./page.js";

function toView(row: CredentialRow): CredentialView {
  return {
    id: row.id,
    name: row.name,
    type: row.type as CredentialType,
    fields: JSON.parse(row.fields) as string[],
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_used_at: row.last_used_at,
  };
}

/** What the sealed secret is bound to: moving it to another row or owner breaks it. */
function boundTo(id: string, ownerId: string): string {
  return `credential:${id}:${ownerId}`;
}

/** The data of a type, checked; VALIDATION_FAILED with paths under body.data otherwise. */
function checkData(type: string, data: unknown): CredentialData {
  const parsed = credentialData.safeParse({ type, data });
  if (!parsed.success) {
    throw new AppError(
      "VALIDATION_FAILED",
      parsed.error.issues.map((issue) => ({
        path: ["body", ...issue.path.map(String)].join("."),
        message: issue.message,
        code: issue.code,
      })),
    );
  }
  return parsed.data;
}

export class CredentialService {
  readonly #credentials: CredentialRepository;
  readonly #box: SecretBox;

  constructor(deps: { credentials: CredentialRepository; box: SecretBox }) {
    this.#credentials = deps.credentials;
    this.#box = deps.box;
  }

  // Changing credentials needs a signed-in person, like managing API keys.
  async create(actor: Actor, body: CreateCredentialBody): Promise<CredentialView> {
    assertSession(actor);
    const checked = checkData(body.type, body.data);
    const id = randomUUID();
    const result = await this.#credentials.create({
      id,
      ownerId: actor.userId,
      name: body.name,
      type: checked.type,
      secret: this.#box.seal(JSON.stringify(checked.data), boundTo(id, actor.userId)),
      fields: Object.keys(checked.data),
    });
    if (!result.ok) throw new AppError("CREDENTIAL_NAME_TAKEN", { name: body.name });
    return toView(result.row);
  }

  async list(actor: Actor, page: PaginationQuery): Promise<Page<CredentialView>> {
    const rows = await this.#credentials.listByOwner(actor.userId, page.limit + 1, page.offset);
    return toPage(rows.map(toView), page);
  }

  async get(actor: Actor, id: string): Promise<CredentialView> {
    return toView(await this.#owned(actor.userId, id));
  }

  async update(actor: Actor, id: string, body: UpdateCredentialBody): Promise<CredentialView> {
    assertSession(actor);
    const row = await this.#owned(actor.userId, id);
    const checked = body.data === undefined ? null : checkData(row.type, body.data);
    const result = await this.#credentials.update(actor.userId, id, {
      name: body.name,
      ...(checked
        ? {
            secret: this.#box.seal(JSON.stringify(checked.data), boundTo(id, actor.userId)),
            fields: Object.keys(checked.data),
          }
        : {}),
    });
    if (!result.ok) throw new AppError("CREDENTIAL_NAME_TAKEN", { name: body.name });
    if (!result.row) throw new AppError("CREDENTIAL_NOT_FOUND");
    return toView(result.row);
  }

  async delete(actor: Actor, id: string): Promise<void> {
    assertSession(actor);
    if (!(await this.#credentials.delete(actor.userId, id))) throw new AppError("CREDENTIAL_NOT_FOUND");
  }

  /** The type of an owner's credential, for the validator (nothing is decrypted). */
  typeFor(ownerId: string): (id: string) => Promise<CredentialType | undefined> {
    return async (id) => (await this.#credentials.findOwned(ownerId, id))?.type as CredentialType | undefined;
  }

  /** Opens an owner's credentials for a run; another user's id resolves to nothing. */
  resolverFor(ownerId: string): CredentialResolver {
    return async (id) => {
      const row = await this.#credentials.findOwned(ownerId, id);
      if (!row) return undefined;
      const data = JSON.parse(this.#box.open(row.secret, boundTo(row.id, row.owner_id))) as unknown;
      await this.#credentials.markUsed([row.id]);
      return { id: row.id, name: row.name, ...checkData(row.type, data) } as StoredCredential;
    };
  }

  /**
   * Re-seals with the current key every credential sealed with an older one (after
   * `superstep rotate-key` or a new STUDIO_ENCRYPTION_KEY). Passes repeat while a concurrent
   * write left a row under an old key. `unreadable` lists ids no loaded key opens.
   */
  async resealAll(): Promise<{ resealed: number; unreadable: string[] }> {
    let resealed = 0;
    const unreadable = new Set<string>();
    for (let pass = 0; pass < 5; pass++) {
      const stale = (await this.#credentials.listSealed()).filter(
        (row) => SecretBox.keyIdOf(row.secret) !== this.#box.currentKeyId && !unreadable.has(row.id),
      );
      if (stale.length === 0) break;
      for (const row of stale) {
        let plaintext: string;
        try {
          plaintext = this.#box.open(row.secret, boundTo(row.id, row.owner_id));
        } catch {
          unreadable.add(row.id);
          continue;
        }
        const sealed = this.#box.seal(plaintext, boundTo(row.id, row.owner_id));
        if (await this.#credentials.replaceSealed(row.id, row.secret, sealed)) resealed++;
      }
    }
    return { resealed, unreadable: [...unreadable] };
  }

  async #owned(ownerId: string, id: string): Promise<CredentialRow> {
    const row = await this.#credentials.findOwned(ownerId, id);
    if (!row) throw new AppError("CREDENTIAL_NOT_FOUND");
    return row;
  }
}
