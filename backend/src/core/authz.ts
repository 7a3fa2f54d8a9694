// Who is calling, and the ownership rule every service applies: another user's resource is
// answered exactly like a missing one, so ids of other accounts cannot be probed.
import { AppError, type ErrorCode } from "./errors.js";

export type UserRole = "owner" | "member";

export interface Actor {
  userId: string;
  role: UserRole;
  /** How the caller proved who they are: a signed-in session (JWT) or an API key. */
  via: "session" | "api_key";
  /** The key used, when via is "api_key". */
  apiKeyId?: string;
}

export function assertOwned<T extends { owner_id: string }>(
  resource: T | undefined,
  actor: Actor,
  notFound: ErrorCode,
): T {
  if (!resource || resource.owner_id !== actor.userId) throw new AppError(notFound);
  return resource;
}

export function assertSession(actor: Actor): void {
  if (actor.via !== "session") throw new AppError("AUTH_SESSION_REQUIRED");
}
