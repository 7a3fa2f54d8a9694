import type { UserRow } from "../models/database.model.js";
import type { UserView } from "../schemas/auth.schema.js";

export function toUserView(row: UserRow): UserView {
  return { id: row.id, email: row.email, name: row.name, role: row.role, created_at: row.created_at };
}
