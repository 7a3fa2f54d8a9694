// What the engine needs from the outside, as interfaces. Services hand in implementations backed
// by the database; the engine never sees it.
import type { CredentialType, StoredCredential } from "../../schemas/credential.schema.js";

export interface LedgerEntry {
  /** The state update the node returned. */
  update: Record<string, unknown>;
}

/** Finished side-effect results by idempotency key (run, node, iteration). */
export interface ResultLedger {
  /**
   * Called right before a node calls another system: a durable ledger first makes everything the
   * run has written so far durable, so that no call leaves on state that could still be lost.
   */
  get(key: string): Promise<LedgerEntry | undefined>;
  /** Resolves once the result is durable. */
  put(key: string, entry: LedgerEntry): Promise<void>;
}

export class MemoryResultLedger implements ResultLedger {
  readonly entries = new Map<string, LedgerEntry>();

  async get(key: string): Promise<LedgerEntry | undefined> {
    return this.entries.get(key);
  }

  async put(key: string, entry: LedgerEntry): Promise<void> {
    this.entries.set(key, structuredClone(entry));
  }
}

/** Loads a saved workflow version (the raw document) for Subgraph nodes; undefined when missing. */
export type WorkflowResolver = (workflowId: string, version: number) => Promise<unknown | undefined>;

/** Opens one of the run owner's credentials by id; undefined when it is missing or not theirs. */
export type CredentialResolver = (id: string) => Promise<StoredCredential | undefined>;

/** The type of one of the caller's credentials (validation decrypts nothing). */
export type CredentialTypeLookup = (id: string) => Promise<CredentialType | undefined>;
