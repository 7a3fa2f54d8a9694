// The signed-in session: the bearer token and its user, kept in localStorage so that a reload or a
// second tab stays signed in. Signing out in one tab signs out the others (the storage event).
export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  role: "owner" | "member";
  created_at: string;
}

export interface Session {
  token: string;
  user: SessionUser;
}

export const SESSION_KEY = "superstep.session";

/** `fromOtherTab`: the change came from another tab of the studio (the storage event). */
type Listener = (session: Session | null, fromOtherTab: boolean) => void;
const listeners = new Set<Listener>();

function storage(): Storage | null {
  return typeof localStorage === "undefined" ? null : localStorage;
}

function parse(raw: string | null): Session | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<Session> | null;
    if (!value || typeof value.token !== "string" || value.token === "" || typeof value.user !== "object") return null;
    return value as Session;
  } catch {
    return null;
  }
}

let current: Session | null = parse(storage()?.getItem(SESSION_KEY) ?? null);

function emit(fromOtherTab = false): void {
  for (const listener of listeners) listener(current, fromOtherTab);
}

if (typeof window !== "undefined") {
  window.addEventListener("storage", (event) => {
    if (event.key !== SESSION_KEY && event.key !== null) return;
    current = parse(storage()?.getItem(SESSION_KEY) ?? null);
    emit(true);
  });
}

export function getSession(): Session | null {
  return current;
}

export function setSession(session: Session): void {
  current = session;
  storage()?.setItem(SESSION_KEY, JSON.stringify(session));
  emit();
}

export function clearSession(): void {
  current = null;
  storage()?.removeItem(SESSION_KEY);
  emit();
}

export function subscribeSession(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
