// Workflows and their immutable versions. A workflow row always mirrors its newest version;
// both change together in one transaction.
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database, WorkflowRow, WorkflowVersionRow } from "../models/database.model.js";
import { nowIso } from "./clock.js";
import { preparedQuery } from "./prepared-query.js";

export type WorkflowSummaryRow = Omit<WorkflowRow, "document">;
/** A version as listed: with its author's name and email (null when the account is gone). */
export type VersionSummaryRow = Omit<WorkflowVersionRow, "document"> & {
  author_name: string | null;
  author_email: string | null;
};
export type VersionRow = WorkflowVersionRow & { author_name: string | null; author_email: string | null };

export interface VersionContent {
  name: string;
  description: string | null;
  /** The document as JSON text. */
  document: string;
  contentHash: string;
  authorId: string;
  restoredFrom?: number | null;
}

const SUMMARY_COLUMNS = [
  "id",
  "owner_id",
  "name",
  "description",
  "version",
  "content_hash",
  "created_at",
  "updated_at",
] as const;

const VERSION_SUMMARY_COLUMNS = [
  "v.workflow_id",
  "v.number",
  "v.content_hash",
  "v.author_id",
  "v.created_at",
  "v.restored_from",
  "u.name as author_name",
  "u.email as author_email",
] as const;

// Read by every trigger: compiled once.
const workflowById = preparedQuery<{ id: string }, WorkflowRow>((db, p) =>
  db.selectFrom("workflows").selectAll().where("id", "=", p.id),
);

export class WorkflowRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** A new workflow together with its version 1. */
  async create(ownerId: string, content: VersionContent): Promise<WorkflowRow> {
    const now = nowIso();
    const row: WorkflowRow = {
      id: randomUUID(),
      owner_id: ownerId,
      name: content.name,
      description: content.description,
      document: content.document,
      version: 1,
      content_hash: content.contentHash,
      created_at: now,
      updated_at: now,
    };
    await this.#db.transaction().execute(async (tx) => {
      await tx.insertInto("workflows").values(row).execute();
      await tx
        .insertInto("workflow_versions")
        .values({
          workflow_id: row.id,
          number: 1,
          content_hash: content.contentHash,
          document: content.document,
          author_id: content.authorId,
          created_at: now,
          restored_from: content.restoredFrom ?? null,
        })
        .execute();
    });
    return row;
  }

  async findById(id: string): Promise<WorkflowRow | undefined> {
    return (await workflowById(this.#db, { id })).rows[0];
  }

  listByOwner(ownerId: string, limit: number, offset: number): Promise<WorkflowSummaryRow[]> {
    return this.#db
      .selectFrom("workflows")
      .select(SUMMARY_COLUMNS)
      .where("owner_id", "=", ownerId)
      .orderBy("updated_at", "desc")
      .orderBy("id")
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /**
   * Appends the next version and makes it current, in one transaction. The update is skipped
   * (undefined) when the current content already has this hash, or, with `expectedVersion`, when
   * the workflow is no longer at that version. Concurrent appends are serialised by the row lock.
   */
  async appendVersion(id: string, content: VersionContent, expectedVersion?: number): Promise<WorkflowRow | undefined> {
    const now = nowIso();
    return this.#db.transaction().execute(async (tx) => {
      let update = tx
        .updateTable("workflows")
        .set((eb) => ({
          name: content.name,
          description: content.description,
          document: content.document,
          version: eb("version", "+", 1),
          content_hash: content.contentHash,
          updated_at: now,
        }))
        .where("id", "=", id)
        .where("content_hash", "<>", content.contentHash);
      if (expectedVersion !== undefined) update = update.where("version", "=", expectedVersion);
      const updated = await update.returningAll().executeTakeFirst();
      if (!updated) return undefined;
      await tx
        .insertInto("workflow_versions")
        .values({
          workflow_id: id,
          number: updated.version,
          content_hash: content.contentHash,
          document: content.document,
          author_id: content.authorId,
          created_at: now,
          restored_from: content.restoredFrom ?? null,
        })
        .execute();
      return updated;
    });
  }

  /** Removes the workflow and every version of it. */
  async delete(id: string): Promise<void> {
    await this.#db.transaction().execute(async (tx) => {
      await tx.deleteFrom("workflow_versions").where("workflow_id", "=", id).execute();
      await tx.deleteFrom("workflows").where("id", "=", id).execute();
    });
  }

  listVersions(workflowId: string, limit: number, offset: number): Promise<VersionSummaryRow[]> {
    return this.#db
      .selectFrom("workflow_versions as v")
      .leftJoin("users as u", "u.id", "v.author_id")
      .select(VERSION_SUMMARY_COLUMNS)
      .where("v.workflow_id", "=", workflowId)
      .orderBy("v.number", "desc")
      .limit(limit)
      .offset(offset)
      .execute();
  }

  findVersion(workflowId: string, number: number): Promise<VersionRow | undefined> {
    return this.#db
      .selectFrom("workflow_versions as v")
      .leftJoin("users as u", "u.id", "v.author_id")
      .select([...VERSION_SUMMARY_COLUMNS, "v.document"])
      .where("v.workflow_id", "=", workflowId)
      .where("v.number", "=", number)
      .executeTakeFirst();
  }
}
