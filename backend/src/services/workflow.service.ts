// Workflows and versions. Every save whose document differs from the current one appends an
// immutable version; a save that changes nothing writes nothing.
import { type Actor, assertOwned } from "../core/authz.js";
import { contentHash } from "../core/canonical-json.js";
import type { EngineConfig } from "../core/config.js";
import { AppError } from "../core/errors.js";
import type { CredentialTypeLookup, WorkflowResolver } from "../engine/runtime/ports.js";
import { prepareWorkflow } from "../engine/runtime/prepare-workflow.js";
import type { WorkflowRow } from "../models/database.model.js";
import type {
  VersionContent,
  VersionRow,
  VersionSummaryRow,
  WorkflowRepository,
  WorkflowSummaryRow,
} from "../repositories/workflow.repository.js";
import type { PaginationQuery } from "../schemas/common.schema.js";
import type {
  VersionSummaryView,
  VersionView,
  WorkflowDocument,
  WorkflowSummaryView,
  WorkflowView,
} from "../schemas/workflow.schema.js";
import { type Page, toPage } from "./page.js";

function toSummary(row: WorkflowSummaryRow): WorkflowSummaryView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    version: row.version,
    content_hash: row.content_hash,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toView(row: WorkflowRow): WorkflowView {
  return { ...toSummary(row), document: JSON.parse(row.document) as WorkflowDocument };
}

function toVersionSummary(row: VersionSummaryRow): VersionSummaryView {
  return {
    number: row.number,
    content_hash: row.content_hash,
    author_id: row.author_id,
    author_name: row.author_name,
    author_email: row.author_email,
    created_at: row.created_at,
    restored_from: row.restored_from,
  };
}

function toVersionView(row: VersionRow): VersionView {
  return { ...toVersionSummary(row), document: JSON.parse(row.document) as WorkflowDocument };
}

function content(document: WorkflowDocument, authorId: string, restoredFrom: number | null = null): VersionContent {
  return {
    name: document.name,
    description: document.description ?? null,
    document: JSON.stringify(document),
    contentHash: contentHash(document),
    authorId,
    restoredFrom,
  };
}

/** A document without what a person may still change on an imported workflow: its name and description. */
function graphPart(document: WorkflowDocument): string {
  const { name: _name, description: _description, ...rest } = document;
  return contentHash(rest);
}

/**
 * An imported workflow's graph is the repository's (decision 0028): a save may rename it or change
 * its description, nothing else; nor can a save turn a workflow into an imported one.
 */
function assertEditable(current: WorkflowDocument, next: WorkflowDocument): void {
  if (!current.imported && !next.imported) return;
  if (!current.imported)
    throw new AppError("WORKFLOW_READ_ONLY", { reason: "a workflow becomes imported only through an import" });
  if (graphPart(current) !== graphPart(next))
    throw new AppError("WORKFLOW_READ_ONLY", {
      reason: "only the name and the description of an imported workflow can be changed",
    });
}

export interface SaveResult {
  workflow: WorkflowView;
  /** False when the document was identical to the current version and nothing was written. */
  created_version: boolean;
}

export class WorkflowService {
  readonly #workflows: WorkflowRepository;
  readonly #engine: EngineConfig;
  readonly #credentialTypes: (ownerId: string) => CredentialTypeLookup;

  constructor(deps: {
    workflows: WorkflowRepository;
    engine: EngineConfig;
    /** The types of an owner's stored credentials, for the validator. */
    credentialTypes: (ownerId: string) => CredentialTypeLookup;
  }) {
    this.#workflows = deps.workflows;
    this.#engine = deps.engine;
    this.#credentialTypes = deps.credentialTypes;
  }

  /** Saved versions the actor owns, for Subgraph nodes. */
  resolverFor(actor: Actor): WorkflowResolver {
    return async (id, version) => {
      const workflow = await this.#workflows.findById(id);
      if (!workflow || workflow.owner_id !== actor.userId) return undefined;
      const saved = await this.#workflows.findVersion(id, version);
      return saved ? (JSON.parse(saved.document) as unknown) : undefined;
    };
  }

  /** The actor's stored credentials, by type, for validation (nothing is decrypted). */
  credentialTypesFor(actor: Actor): CredentialTypeLookup {
    return this.#credentialTypes(actor.userId);
  }

  /** Checks a document as a run would; AppError WORKFLOW_INVALID lists every problem. */
  async validate(actor: Actor, document: unknown, workflowId?: string): Promise<{ valid: true }> {
    await prepareWorkflow(document, {
      engine: this.#engine,
      resolveWorkflow: this.resolverFor(actor),
      credentialType: this.credentialTypesFor(actor),
      workflowId,
    });
    return { valid: true };
  }

  async create(actor: Actor, document: WorkflowDocument): Promise<WorkflowView> {
    return toView(await this.#workflows.create(actor.userId, content(document, actor.userId)));
  }

  async list(actor: Actor, page: PaginationQuery): Promise<Page<WorkflowSummaryView>> {
    const rows = await this.#workflows.listByOwner(actor.userId, page.limit + 1, page.offset);
    return toPage(rows.map(toSummary), page);
  }

  async get(actor: Actor, id: string): Promise<WorkflowView> {
    return toView(await this.#owned(actor, id));
  }

  /**
   * Saves a new document. With `ifVersion` (the editor's If-Match), the save is refused when the
   * workflow moved on since that version; without it, the newest save wins.
   */
  async save(actor: Actor, id: string, document: WorkflowDocument, ifVersion?: number): Promise<SaveResult> {
    assertEditable(JSON.parse((await this.#owned(actor, id)).document) as WorkflowDocument, document);
    return this.#write(actor, id, content(document, actor.userId), ifVersion);
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await this.#owned(actor, id);
    await this.#workflows.delete(id);
  }

  async listVersions(actor: Actor, id: string, page: PaginationQuery): Promise<Page<VersionSummaryView>> {
    await this.#owned(actor, id);
    const rows = await this.#workflows.listVersions(id, page.limit + 1, page.offset);
    return toPage(rows.map(toVersionSummary), page);
  }

  async getVersion(actor: Actor, id: string, number: number): Promise<VersionView> {
    return toVersionView(await this.#version(actor, id, number));
  }

  /** Makes version `number` current again by writing it as a new version. */
  async restore(actor: Actor, id: string, number: number): Promise<SaveResult> {
    const version = await this.#version(actor, id, number);
    const document = JSON.parse(version.document) as WorkflowDocument;
    return this.#write(actor, id, content(document, actor.userId, number));
  }

  async #write(actor: Actor, id: string, next: VersionContent, ifVersion?: number): Promise<SaveResult> {
    const current = await this.#owned(actor, id);
    if (ifVersion !== undefined && current.version !== ifVersion) throw this.#conflict(current, ifVersion);
    if (current.content_hash === next.contentHash) return { workflow: toView(current), created_version: false };
    const saved = await this.#workflows.appendVersion(id, next, ifVersion);
    if (saved) return { workflow: toView(saved), created_version: true };
    // Another save landed between our read and our write: either it wrote this very content,
    // or (with If-Match) it moved the workflow past the version the caller loaded.
    const latest = await this.#owned(actor, id);
    if (latest.content_hash === next.contentHash) return { workflow: toView(latest), created_version: false };
    throw this.#conflict(latest, ifVersion);
  }

  #conflict(current: WorkflowRow, ifVersion: number | undefined): AppError {
    return new AppError("WORKFLOW_VERSION_CONFLICT", {
      current_version: current.version,
      if_version: ifVersion ?? null,
    });
  }

  async #owned(actor: Actor, id: string): Promise<WorkflowRow> {
    return assertOwned(await this.#workflows.findById(id), actor, "WORKFLOW_NOT_FOUND");
  }

  async #version(actor: Actor, id: string, number: number): Promise<VersionRow> {
    await this.#owned(actor, id);
    const version = await this.#workflows.findVersion(id, number);
    if (!version) throw new AppError("VERSION_NOT_FOUND");
    return version;
  }
}
