// The journal in IndexedDB (through `idb`): one record per workflow, keyed by workflow id and the
// version its edits started from. A record is written whole in one transaction, which also drops
// the workflow's records of other base versions.
import { type DBSchema, type IDBPDatabase, openDB } from "idb";
import type { JournalRecord } from "./journal-record.js";

export const JOURNAL_DATABASE = "superstep-editor-journal";
const STORE = "journal";

interface JournalSchema extends DBSchema {
  journal: { key: [string, number]; value: JournalRecord; indexes: { workflowId: string } };
}

export interface JournalStorage {
  /** Writes the record, replacing the workflow's record of any base version. */
  put(record: JournalRecord): Promise<void>;
  /** The workflow's newest record, if any. */
  find(workflowId: string): Promise<JournalRecord | undefined>;
  /** Drops every record of the workflow (after a save, or when the person declines the offer). */
  clear(workflowId: string): Promise<void>;
  close(): void;
}

export async function openJournalStorage(name: string = JOURNAL_DATABASE): Promise<JournalStorage> {
  const db: IDBPDatabase<JournalSchema> = await openDB<JournalSchema>(name, 1, {
    upgrade(database) {
      const store = database.createObjectStore(STORE, { keyPath: ["workflowId", "baseVersion"] });
      store.createIndex("workflowId", "workflowId");
    },
  });
  return {
    async put(record) {
      const tx = db.transaction(STORE, "readwrite");
      const others = await tx.store.index("workflowId").getAllKeys(record.workflowId);
      for (const key of others) if (key[1] !== record.baseVersion) await tx.store.delete(key);
      await tx.store.put(record);
      await tx.done;
    },
    async find(workflowId) {
      const records = await db.getAllFromIndex(STORE, "workflowId", workflowId);
      return records.sort((a, b) => b.writtenAt - a.writtenAt)[0];
    },
    async clear(workflowId) {
      const tx = db.transaction(STORE, "readwrite");
      for (const key of await tx.store.index("workflowId").getAllKeys(workflowId)) await tx.store.delete(key);
      await tx.done;
    },
    close() {
      db.close();
    },
  };
}
