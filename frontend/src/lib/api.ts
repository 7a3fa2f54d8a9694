// The UI's only door to the API: unwraps {"data": …} and turns {"error": …} into ApiError,
// whose code the UI translates (errors.<CODE> in the locale files).
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: unknown;

  constructor(code: string, status: number, message: string, details: unknown) {
    super(message);
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

export interface Health {
  status: "ok";
  version: string;
  db: "sqlite" | "postgres";
  queue: "memory" | "redis";
  import_enabled: boolean;
}

export interface AuthStatus {
  setup_required: boolean;
  signup_allowed: boolean;
}

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers: { accept: "application/json", ...init.headers } });
  } catch (error) {
    throw new ApiError("NETWORK", 0, error instanceof Error ? error.message : String(error), null);
  }
  const body = (await response.json().catch(() => null)) as
    | { data: T }
    | { error: { code: string; message: string; details: unknown } }
    | null;
  if (!response.ok || !body || !("data" in body)) {
    const error =
      body && "error" in body ? body.error : { code: "INTERNAL", message: response.statusText, details: null };
    throw new ApiError(error.code, response.status, error.message, error.details);
  }
  return body.data;
}

export const api = {
  health: () => request<Health>("/api/health"),
  authStatus: () => request<AuthStatus>("/api/auth/status"),
};
