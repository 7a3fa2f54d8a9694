// Table types for Kysely. Times are ISO-8601 UTC strings and JSON documents are text, so the
// same repository code reads and writes SQLite and PostgreSQL alike.
import type { Selectable } from "kysely";
import type { UserRole } from "../core/authz.js";

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  role: UserRole;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface WorkflowsTable {
  id: string;
  owner_id: string;
  name: string;
  description: string | null;
  /** The current document as JSON text; always equal to the document of `version`. */
  document: string;
  version: number;
  content_hash: string;
  created_at: string;
  updated_at: string;
}

export interface WorkflowVersionsTable {
  workflow_id: string;
  number: number;
  content_hash: string;
  document: string;
  author_id: string;
  created_at: string;
  restored_from: number | null;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  workflows: WorkflowsTable;
  workflow_versions: WorkflowVersionsTable;
}

export type UserRow = Selectable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type WorkflowRow = Selectable<WorkflowsTable>;
export type WorkflowVersionRow = Selectable<WorkflowVersionsTable>;
