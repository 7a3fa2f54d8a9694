// The one rule for outbound connections a workflow controls (HTTP tools, model base URLs,
// callbacks, SMTP servers from credentials): public addresses are allowed; loopback, private,
// reserved and translated ones only when STUDIO_EGRESS_ALLOW names the host or the network;
// link-local and cloud metadata addresses never.
import { ALWAYS_REFUSED, type Classification, classifyAddress } from "./address-class.js";
import { type IpAddress, inNetwork, type Network, parseIp, parseNetwork } from "./ip-address.js";

export type EgressRule =
  | { kind: "host"; host: string; wildcard: boolean; port: number | null; text: string }
  | { kind: "network"; network: Network; port: number | null; text: string };

export type EgressVerdict =
  | { allowed: true; classification: Classification }
  | { allowed: false; classification: Classification; reason: "always" | "not-allowed" };

const HOST = /^(?:\*\.)?(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;

/** Lower case, no brackets, no trailing dot: the form names are compared in. */
export function normalizeHost(host: string): string {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, "");
}

function splitPort(entry: string): { target: string; port: number | null } | null {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) return { target: bracketed[1] as string, port: bracketed[2] ? Number(bracketed[2]) : null };
  const colons = entry.split(":").length - 1;
  // More than one colon without brackets is an IPv6 address or network without a port.
  if (colons !== 1) return { target: entry, port: null };
  const [target, port] = entry.split(":") as [string, string];
  if (!/^\d{1,5}$/.test(port)) return null;
  return { target, port: Number(port) };
}

/**
 * One STUDIO_EGRESS_ALLOW entry: `host`, `*.domain`, `host:port`, an address (`127.0.0.1`,
 * `[::1]:11434`) or a network (`10.0.0.0/8`, `fd00::/8`). Null when it is none of these.
 */
export function parseEgressRule(raw: string): EgressRule | null {
  const text = raw.trim();
  const split = splitPort(text);
  if (!split || (split.port !== null && (split.port < 1 || split.port > 65535))) return null;
  const network = split.target.includes("/") || parseIp(split.target) ? parseNetwork(split.target) : null;
  if (network) {
    if (split.port !== null && network.prefix !== (network.family === 4 ? 32 : 128)) return null;
    return { kind: "network", network, port: split.port, text };
  }
  if (split.target.includes("/")) return null;
  const host = normalizeHost(split.target);
  if (!HOST.test(host)) return null;
  const wildcard = host.startsWith("*.");
  return { kind: "host", host: wildcard ? host.slice(2) : host, wildcard, port: split.port, text };
}

/** A comma- or space-separated list; throws with the first entry that cannot be read. */
export function parseEgressAllow(list: string): EgressRule[] {
  const rules: EgressRule[] = [];
  for (const entry of list.split(/[\s,]+/).filter(Boolean)) {
    const rule = parseEgressRule(entry);
    if (!rule) throw new Error(`"${entry}" is not a host, host:port, address or network`);
    rules.push(rule);
  }
  return rules;
}

function hostMatches(rule: Extract<EgressRule, { kind: "host" }>, host: string): boolean {
  return rule.wildcard ? host.endsWith(`.${rule.host}`) : host === rule.host;
}

/** IPv4-mapped IPv6 is the IPv4 address itself, so IPv4 rules apply to it too. */
function comparable(ip: IpAddress, classification: Classification): IpAddress {
  const mapped = classification.embedded?.form === "ipv4-mapped" ? parseIp(classification.embedded.ipv4) : null;
  return mapped ?? ip;
}

export class EgressPolicy {
  readonly rules: readonly EgressRule[];

  constructor(rules: readonly EgressRule[] = []) {
    this.rules = rules;
  }

  /** The same policy with more allowed entries (e.g. the configured model endpoints). */
  with(extra: readonly EgressRule[]): EgressPolicy {
    return extra.length === 0 ? this : new EgressPolicy([...this.rules, ...extra]);
  }

  /** Whether a connection to `address` (resolved from `host`) on `port` may be made. */
  check(host: string, address: IpAddress, port: number): EgressVerdict {
    const classification = classifyAddress(address);
    if (ALWAYS_REFUSED.has(classification.class)) {
      return { allowed: false, classification, reason: "always" };
    }
    if (classification.class === "public") return { allowed: true, classification };
    const name = normalizeHost(host);
    const target = comparable(address, classification);
    for (const rule of this.rules) {
      if (rule.port !== null && rule.port !== port) continue;
      if (rule.kind === "host" ? hostMatches(rule, name) : inNetwork(target, rule.network)) {
        return { allowed: true, classification };
      }
    }
    return { allowed: false, classification, reason: "not-allowed" };
  }
}
