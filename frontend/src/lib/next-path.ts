// Where to go after signing in: back to the page the person was on when the session ended, but
// only to a page of this studio (never an absolute or protocol-relative URL: no open redirect).
export const HOME_PATH = "/workflows";

export function safeNextPath(value: string | null | undefined): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return HOME_PATH;
  if ([...value].some((char) => char.charCodeAt(0) < 0x20 || char === "\u007f")) return HOME_PATH;
  const path = value.split(/[?#]/)[0] ?? "";
  if (path === "/login" || path === "/setup" || path === "/") return HOME_PATH;
  return value;
}

/** The login page's address that brings the person back to `next`, saying why they must sign in. */
export function loginPath(next: string, reason?: string): string {
  const params = new URLSearchParams();
  const target = safeNextPath(next);
  if (target !== HOME_PATH) params.set("next", target);
  if (reason) params.set("reason", reason);
  const query = params.toString();
  return query ? `/login?${query}` : "/login";
}
