// Where a callback may be sent: an http(s) URL whose destination passes the egress policy (no
// loopback, private, link-local or metadata address unless STUDIO_EGRESS_ALLOW allows it). The
// check runs at trigger time for a clear 422, and every delivery connects through the same
// policy again (DNS may change in between).
import type { EgressClient } from "../../core/egress/egress-client.js";
import { AppError } from "../../core/errors.js";

export async function checkCallbackUrl(raw: string, egress: EgressClient): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("CALLBACK_URL_INVALID", { url: raw });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("CALLBACK_URL_INVALID", { url: raw });
  try {
    await egress.check(url);
  } catch (error) {
    if (error instanceof AppError && error.code === "EGRESS_REFUSED") {
      throw new AppError("CALLBACK_URL_NOT_ALLOWED", { url: raw, ...(error.details as object) });
    }
    throw new AppError("CALLBACK_URL_INVALID", { url: raw, reason: "the host name does not resolve" });
  }
  return url;
}
