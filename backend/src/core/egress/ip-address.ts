// IP addresses as bytes: parsing every spelling a resolver or an HTTP client would accept, and
// prefix matching. Pure functions; the egress policy classifies what these return.
import { isIPv6 } from "node:net";

export interface IpAddress {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

const IPV4_PART = /^(?:0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$/i;

/**
 * IPv4 in the inet_aton forms getaddrinfo accepts: dotted decimal, but also octal (`0177.0.0.1`),
 * hex (`0x7f.1`), and one to three parts (`2130706433`, `127.1`). The last part fills the
 * remaining bytes.
 */
export function parseIpv4(text: string): IpAddress | null {
  const parts = text.split(".");
  if (parts.length < 1 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    if (!IPV4_PART.test(part)) return null;
    const value = part.toLowerCase().startsWith("0x")
      ? part.length === 2
        ? 0
        : Number.parseInt(part.slice(2), 16)
      : part.length > 1 && part.startsWith("0")
        ? Number.parseInt(part.slice(1), 8)
        : Number(part);
    if (!Number.isSafeInteger(value)) return null;
    values.push(value);
  }
  const last = values.pop() as number;
  if (values.some((v) => v > 255)) return null;
  const remaining = 4 - values.length;
  if (last >= 2 ** (8 * remaining)) return null;
  const bytes = new Uint8Array(4);
  values.forEach((v, i) => {
    bytes[i] = v;
  });
  for (let i = 0; i < remaining; i++) bytes[3 - i] = Math.floor(last / 2 ** (8 * i)) % 256;
  return { family: 4, bytes };
}

/** IPv6, with `::`, an embedded dotted IPv4 tail, brackets or a zone id (`%eth0`). */
export function parseIpv6(text: string): IpAddress | null {
  let value = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = value.indexOf("%");
  if (zone >= 0) value = value.slice(0, zone);
  if (!isIPv6(value)) return null;
  const bytes = new Uint8Array(16);
  let tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(value);
  if (dotted) {
    const v4 = parseIpv4(dotted[1] as string);
    if (!v4) return null;
    tail = [...v4.bytes];
    value = `${value.slice(0, dotted.index)}0:0`;
  }
  const [head = "", rest] = value.split("::");
  const groups = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  all.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return { family: 6, bytes };
}

export function parseIp(text: string): IpAddress | null {
  return text.includes(":") ? parseIpv6(text) : parseIpv4(text);
}

export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) return [...ip.bytes].join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((ip.bytes[i] as number) << 8) | (ip.bytes[i + 1] as number)).toString(16));
  // The longest run of zero groups becomes "::".
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best.length && j - i > 1) best = { start: i, length: j - i };
    i = j;
  }
  if (best.start < 0) return groups.join(":");
  const left = groups.slice(0, best.start).join(":");
  const right = groups.slice(best.start + best.length).join(":");
  return `${left}::${right}`;
}

/** Whether the first `prefix` bits of two addresses of the same family are equal. */
export function samePrefix(a: Uint8Array, b: Uint8Array, prefix: number): boolean {
  if (a.length !== b.length) return false;
  const whole = Math.floor(prefix / 8);
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const bits = prefix % 8;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return ((a[whole] as number) & mask) === ((b[whole] as number) & mask);
}

export interface Network {
  family: 4 | 6;
  bytes: Uint8Array;
  prefix: number;
}

/** `10.0.0.0/8`, `fc00::/7`, or a single address (a /32 or /128). */
export function parseNetwork(text: string): Network | null {
  const slash = text.lastIndexOf("/");
  const ip = parseIp(slash >= 0 ? text.slice(0, slash) : text);
  if (!ip) return null;
  const max = ip.family === 4 ? 32 : 128;
  if (slash < 0) return { ...ip, prefix: max };
  const raw = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(raw) || Number(raw) > max) return null;
  return { ...ip, prefix: Number(raw) };
}

export function inNetwork(ip: IpAddress, network: Network): boolean {
  return ip.family === network.family && samePrefix(ip.bytes, network.bytes, network.prefix);
}
