// One catalog of every error the product can answer with. Codes are stable ids that clients
// translate; only api/error-handlers turns an AppError into an HTTP response.

export const CATALOG = {
  // Request shape
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON." },
  VALIDATION_FAILED: { status: 422, message: "The request does not match the expected shape." },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is larger than the server accepts." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "The request body must be JSON (Content-Type: application/json)." },
  NOT_FOUND: { status: 404, message: "No such route." },
  RATE_LIMITED: { status: 429, message: "Too many requests; wait a moment and try again." },
  // Authentication
  AUTH_REQUIRED: { status: 401, message: "Sign in first: send an Authorization: Bearer token." },
  AUTH_INVALID_TOKEN: { status: 401, message: "The token is not valid." },
  AUTH_TOKEN_EXPIRED: { status: 401, message: "The token has expired; sign in again." },
  AUTH_INVALID_CREDENTIALS: { status: 401, message: "Wrong email or password." },
  AUTH_SESSION_REQUIRED: { status: 403, message: "This action needs a signed-in user, not an API key." },
  SETUP_ALREADY_DONE: { status: 409, message: "The owner account already exists; sign in instead." },
  SETUP_REQUIRED: { status: 409, message: "Create the owner account first (POST /api/auth/setup)." },
  SIGNUP_DISABLED: { status: 403, message: "Sign-up is disabled on this server (STUDIO_ALLOW_SIGNUP)." },
  EMAIL_TAKEN: { status: 409, message: "An account with this email already exists." },
  // Resources
  WORKFLOW_NOT_FOUND: { status: 404, message: "No such workflow." },
  VERSION_NOT_FOUND: { status: 404, message: "No such workflow version." },
  API_KEY_NOT_FOUND: { status: 404, message: "No such API key." },
  WORKFLOW_VERSION_CONFLICT: {
    status: 409,
    message: "The workflow was saved by someone else since you loaded it; reload and try again.",
  },
  IMPORT_DISABLED: { status: 404, message: "Repository import is off on this server (STUDIO_ENABLE_IMPORT)." },
  // Server
  DATABASE_UNAVAILABLE: { status: 503, message: "The database does not answer." },
  CONFIG_INVALID: { status: 500, message: "The server configuration is not valid." },
  INTERNAL: { status: 500, message: "Something went wrong on the server." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof CATALOG;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(CATALOG, code);
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;

  constructor(code: ErrorCode, details?: unknown, message?: string) {
    super(message ?? CATALOG[code].message);
    this.name = "AppError";
    this.code = code;
    this.status = CATALOG[code].status;
    this.details = details ?? null;
  }
}
