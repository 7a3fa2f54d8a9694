import { describe, expect, it } from "vitest";
import { EgressPolicy, parseEgressAllow, parseEgressRule } from "./egress-policy.js";
import { parseIp } from "./ip-address.js";

function verdict(policy: EgressPolicy, host: string, address: string, port = 80) {
  const ip = parseIp(address);
  if (!ip) throw new Error(address);
  const result = policy.check(host, ip, port);
  return result.allowed ? "allowed" : `${result.reason}:${result.classification.class}`;
}

describe("egress rules", () => {
  it.each([
    ["localhost", { kind: "host", host: "localhost", port: null, wildcard: false }],
    ["Ollama.Internal.", { kind: "host", host: "ollama.internal", port: null, wildcard: false }],
    ["ollama.internal:11434", { kind: "host", host: "ollama.internal", port: 11434 }],
    ["*.svc.cluster.local", { kind: "host", host: "svc.cluster.local", wildcard: true }],
    ["127.0.0.1", { kind: "network", port: null }],
    ["127.0.0.1:11434", { kind: "network", port: 11434 }],
    ["[::1]:8080", { kind: "network", port: 8080 }],
    ["fd00::/8", { kind: "network", port: null }],
    ["10.0.0.0/8", { kind: "network", port: null }],
  ])("reads %s", (text, expected) => {
    expect(parseEgressRule(text)).toMatchObject(expected);
  });

  it.each(["http://x/", "10.0.0.0/8:80", "host:0", "host:70000", "bad host", "-", "a/b", "[::1", "1.2.3.4/40"])(
    "refuses %s",
    (text) => {
      expect(parseEgressRule(text)).toBeNull();
    },
  );

  it("names the entry it cannot read", () => {
    expect(() => parseEgressAllow("localhost, bad host!")).toThrow(/"host!"/);
  });
});

describe("egress policy", () => {
  const none = new EgressPolicy();

  it("allows public addresses and refuses every other class by default", () => {
    expect(verdict(none, "example.com", "93.184.215.14")).toBe("allowed");
    expect(verdict(none, "example.com", "2606:2800:21f:cb07:6820:80da:af6b:8b2c")).toBe("allowed");
    expect(verdict(none, "localhost", "127.0.0.1")).toBe("not-allowed:loopback");
    expect(verdict(none, "localhost", "::1")).toBe("not-allowed:loopback");
    expect(verdict(none, "intranet", "10.1.2.3")).toBe("not-allowed:private");
    expect(verdict(none, "x", "0.0.0.0")).toBe("not-allowed:unspecified");
    expect(verdict(none, "x", "64:ff9b::808:808")).toBe("not-allowed:translated");
    expect(verdict(none, "x", "::ffff:127.0.0.1")).toBe("not-allowed:loopback");
  });

  it("allows what the administrator lists: hosts, host:port, addresses and networks", () => {
    const policy = new EgressPolicy(
      parseEgressAllow("ollama.internal:11434, *.corp.example, 127.0.0.1:9000, 10.0.0.0/8"),
    );
    expect(verdict(policy, "ollama.internal", "192.168.1.5", 11434)).toBe("allowed");
    expect(verdict(policy, "ollama.internal", "192.168.1.5", 80)).toBe("not-allowed:private");
    expect(verdict(policy, "api.corp.example", "172.16.0.9")).toBe("allowed");
    expect(verdict(policy, "corp.example", "172.16.0.9")).toBe("not-allowed:private");
    expect(verdict(policy, "whatever", "127.0.0.1", 9000)).toBe("allowed");
    expect(verdict(policy, "whatever", "127.0.0.1", 9001)).toBe("not-allowed:loopback");
    expect(verdict(policy, "whatever", "::ffff:127.0.0.1", 9000)).toBe("allowed");
    expect(verdict(policy, "db", "10.9.8.7", 5432)).toBe("allowed");
    expect(verdict(policy, "db", "11.9.8.7", 5432)).toBe("allowed");
  });

  it("never allows link-local or metadata addresses, whatever the list says", () => {
    const policy = new EgressPolicy(parseEgressAllow("0.0.0.0/0, ::/0, metadata.google.internal, fd00::/8"));
    expect(verdict(policy, "metadata.google.internal", "169.254.169.254")).toBe("always:metadata");
    expect(verdict(policy, "x", "169.254.10.10")).toBe("always:link-local");
    expect(verdict(policy, "x", "fe80::1")).toBe("always:link-local");
    expect(verdict(policy, "x", "fd00:ec2::254")).toBe("always:metadata");
    expect(verdict(policy, "x", "::ffff:169.254.169.254")).toBe("always:metadata");
    expect(verdict(policy, "x", "64:ff9b::a9fe:a9fe")).toBe("always:metadata");
    expect(verdict(policy, "x", "2002:a9fe:a9fe::1")).toBe("always:metadata");
    expect(verdict(policy, "x", "10.0.0.1")).toBe("allowed");
  });
});
