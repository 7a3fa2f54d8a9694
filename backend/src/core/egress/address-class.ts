// What kind of address an outbound connection would reach. Pure: tested range by range without
// sending any traffic. Translated IPv6 forms (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
// Teredo) are judged by the IPv4 address they carry, so `::ffff:127.0.0.1` or
// `64:ff9b::a9fe:a9fe` cannot pass for public addresses.
import { formatIp, type IpAddress, inNetwork, type Network, parseNetwork } from "./ip-address.js";

export const ADDRESS_CLASSES = [
  "public",
  "loopback",
  "private",
  "link-local",
  "metadata",
  "unspecified",
  "multicast",
  "reserved",
  "translated",
] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

/** Refused whatever STUDIO_EGRESS_ALLOW says: cloud credentials live behind these. */
export const ALWAYS_REFUSED: ReadonlySet<AddressClass> = new Set(["link-local", "metadata"]);

export type TranslatedForm = "ipv4-mapped" | "ipv4-compatible" | "nat64" | "6to4" | "teredo";

export interface Classification {
  class: AddressClass;
  /** The canonical spelling of the address. */
  address: string;
  /** For translated IPv6 forms: the IPv4 address inside and how it is carried. */
  embedded?: { form: TranslatedForm; ipv4: string; class: AddressClass };
}

function table(entries: [string, AddressClass][]): [Network, AddressClass][] {
  return entries.map(([text, kind]) => [parseNetwork(text) as Network, kind]);
}

// Most specific first: the first match wins.
const IPV4 = table([
  // Instance metadata services (AWS, GCP, Azure, ECS, Alibaba, Oracle).
  ["169.254.169.254/32", "metadata"],
  ["169.254.170.2/32", "metadata"],
  ["169.254.169.123/32", "metadata"],
  ["100.100.100.200/32", "metadata"],
  ["192.0.0.192/32", "metadata"],
  ["0.0.0.0/8", "unspecified"],
  ["127.0.0.0/8", "loopback"],
  ["10.0.0.0/8", "private"],
  ["172.16.0.0/12", "private"],
  ["192.168.0.0/16", "private"],
  ["100.64.0.0/10", "private"],
  ["169.254.0.0/16", "link-local"],
  ["192.0.0.0/24", "reserved"],
  ["192.0.2.0/24", "reserved"],
  ["192.88.99.0/24", "reserved"],
  ["198.18.0.0/15", "reserved"],
  ["198.51.100.0/24", "reserved"],
  ["203.0.113.0/24", "reserved"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
]);

const IPV6 = table([
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["fd00:ec2::254/128", "metadata"],
  ["fd00:ec2::23/128", "metadata"],
  ["64:ff9b:1::/48", "private"],
  ["100::/64", "reserved"],
  ["2001:db8::/32", "reserved"],
  ["2001:10::/28", "reserved"],
  ["2001:20::/28", "reserved"],
  ["3fff::/20", "reserved"],
  ["fc00::/7", "private"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "private"],
  ["ff00::/8", "multicast"],
  ["2000::/3", "public"],
]);

const MAPPED = parseNetwork("::ffff:0:0/96") as Network;
const COMPATIBLE = parseNetwork("::/96") as Network;
const NAT64 = parseNetwork("64:ff9b::/96") as Network;
const SIX_TO_FOUR = parseNetwork("2002::/16") as Network;
const TEREDO = parseNetwork("2001::/32") as Network;

function lookup(ip: IpAddress, entries: [Network, AddressClass][], fallback: AddressClass): AddressClass {
  for (const [network, kind] of entries) if (inNetwork(ip, network)) return kind;
  return fallback;
}

function ipv4(bytes: Uint8Array): IpAddress {
  return { family: 4, bytes: Uint8Array.from(bytes) };
}

/** The IPv4 address a translated IPv6 form carries, if it is one. */
export function embeddedIpv4(ip: IpAddress): { form: TranslatedForm; ipv4: IpAddress } | null {
  if (ip.family !== 6) return null;
  const b = ip.bytes;
  if (inNetwork(ip, MAPPED)) return { form: "ipv4-mapped", ipv4: ipv4(b.subarray(12, 16)) };
  if (inNetwork(ip, NAT64)) return { form: "nat64", ipv4: ipv4(b.subarray(12, 16)) };
  if (inNetwork(ip, SIX_TO_FOUR)) return { form: "6to4", ipv4: ipv4(b.subarray(2, 6)) };
  // Teredo: the client's address is stored inverted in the last four bytes.
  if (inNetwork(ip, TEREDO)) return { form: "teredo", ipv4: ipv4(b.subarray(12, 16).map((x) => x ^ 0xff)) };
  // IPv4-compatible (deprecated), except :: and ::1 themselves.
  if (inNetwork(ip, COMPATIBLE) && ((b[12] as number) > 0 || (b[13] as number) > 0 || (b[14] as number) > 0))
    return { form: "ipv4-compatible", ipv4: ipv4(b.subarray(12, 16)) };
  return null;
}

export function classifyAddress(ip: IpAddress): Classification {
  const address = formatIp(ip);
  if (ip.family === 4) return { class: lookup(ip, IPV4, "public"), address };
  const translated = embeddedIpv4(ip);
  if (translated) {
    const inner = lookup(translated.ipv4, IPV4, "public");
    const embedded = { form: translated.form, ipv4: formatIp(translated.ipv4), class: inner };
    // A mapped address is the IPv4 address itself; the tunnelled forms reach it through a
    // gateway, so even a public one is refused unless the administrator allows it.
    const kind: AddressClass = inner !== "public" ? inner : translated.form === "ipv4-mapped" ? "public" : "translated";
    return { class: kind, address, embedded };
  }
  return { class: lookup(ip, IPV6, "reserved"), address };
}
