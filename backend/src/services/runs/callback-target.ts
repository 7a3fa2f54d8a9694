// Where a callback may be sent. Private, loopback and link-local addresses are refused unless
// the server allows them, so a run cannot be used to reach the server's own network (SSRF). The
// check runs at trigger time and again before every delivery (DNS may change in between).
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { AppError } from "../../core/errors.js";

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv6");
}

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE.check(mapped, "ipv4");
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6");
}

export async function checkCallbackUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("CALLBACK_URL_INVALID", { url: raw });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("CALLBACK_URL_INVALID", { url: raw });
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw new AppError("CALLBACK_URL_INVALID", { url: raw, reason: "the host name does not resolve" });
    }
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new AppError("CALLBACK_URL_NOT_ALLOWED", { url: raw });
  }
  return url;
}
