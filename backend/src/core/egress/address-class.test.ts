// Pure classification of every range the egress policy knows; no traffic is sent anywhere.
import { describe, expect, it } from "vitest";
import { classifyAddress } from "./address-class.js";
import { formatIp, parseIp, parseIpv4, parseNetwork } from "./ip-address.js";

function classOf(text: string) {
  const ip = parseIp(text);
  if (!ip) throw new Error(`not an address: ${text}`);
  return classifyAddress(ip).class;
}

describe("address classes", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.255", "private"],
    ["100.128.0.1", "public"],
    ["169.254.1.1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["100.100.100.200", "metadata"],
    ["192.0.0.192", "metadata"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
    ["198.51.100.7", "reserved"],
    ["203.0.113.5", "reserved"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
  ])("IPv4 %s is %s", (address, expected) => {
    expect(classOf(address)).toBe(expected);
  });

  it.each([
    ["2606:4700:4700::1111", "public"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["100::1", "reserved"],
    ["3fff::1", "reserved"],
    ["4000::1", "reserved"],
    ["fd00:ec2::254", "metadata"],
    ["64:ff9b:1::1", "private"],
  ])("IPv6 %s is %s", (address, expected) => {
    expect(classOf(address)).toBe(expected);
  });

  it.each([
    // IPv4-mapped: the IPv4 address itself, public ones included.
    ["::ffff:127.0.0.1", "loopback", "ipv4-mapped"],
    ["::ffff:7f00:1", "loopback", "ipv4-mapped"],
    ["::ffff:10.0.0.1", "private", "ipv4-mapped"],
    ["::ffff:169.254.169.254", "metadata", "ipv4-mapped"],
    ["::ffff:8.8.8.8", "public", "ipv4-mapped"],
    // NAT64 (RFC 6052 well-known prefix).
    ["64:ff9b::7f00:1", "loopback", "nat64"],
    ["64:ff9b::127.0.0.1", "loopback", "nat64"],
    ["64:ff9b::a9fe:a9fe", "metadata", "nat64"],
    ["64:ff9b::c0a8:101", "private", "nat64"],
    ["64:ff9b::808:808", "translated", "nat64"],
    // 6to4 carries the IPv4 address in bits 16-47.
    ["2002:7f00:1::1", "loopback", "6to4"],
    ["2002:a9fe:a9fe::", "metadata", "6to4"],
    ["2002:0a00:0001::1", "private", "6to4"],
    ["2002:0808:0808::1", "translated", "6to4"],
    // IPv4-compatible (deprecated) and Teredo (client address inverted).
    ["::127.0.0.1", "loopback", "ipv4-compatible"],
    ["::a00:1", "private", "ipv4-compatible"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback", "teredo"],
    ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "translated", "teredo"],
  ])("translated %s is %s (%s)", (address, expected, form) => {
    const ip = parseIp(address);
    const classification = classifyAddress(ip as NonNullable<typeof ip>);
    expect(classification.class).toBe(expected);
    expect(classification.embedded?.form).toBe(form);
  });
});

describe("address spellings", () => {
  it.each([
    ["2130706433", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.1", "127.0.0.1"],
    ["0xa9.0xfe.0xa9.0xfe", "169.254.169.254"],
    ["025177524776", "169.254.169.254"],
    ["0", "0.0.0.0"],
    ["10.0.0.1", "10.0.0.1"],
  ])("reads %s as %s, as getaddrinfo would", (spelling, canonical) => {
    const ip = parseIpv4(spelling);
    expect(ip && formatIp(ip)).toBe(canonical);
  });

  it.each(["256.0.0.1", "1.2.3.4.5", "08.0.0.1", "1..1", "example.com", "1e3", "", "4294967296", "0x1g"])(
    "does not read %s as an address",
    (spelling) => {
      expect(parseIpv4(spelling)).toBeNull();
    },
  );

  it("writes IPv6 in its canonical short form", () => {
    for (const [input, output] of [
      ["0:0:0:0:0:0:0:1", "::1"],
      ["[::ffff:127.0.0.1]", "::ffff:7f00:1"],
      ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["fe80::1%25eth0", "fe80::1"],
    ]) {
      const ip = parseIp(input as string);
      expect(ip && formatIp(ip)).toBe(output);
    }
  });

  it("reads networks and refuses impossible prefixes", () => {
    expect(parseNetwork("10.0.0.0/8")?.prefix).toBe(8);
    expect(parseNetwork("::1")?.prefix).toBe(128);
    expect(parseNetwork("10.0.0.0/33")).toBeNull();
    expect(parseNetwork("fc00::/129")).toBeNull();
    expect(parseNetwork("10.0.0.0/x")).toBeNull();
  });
});
