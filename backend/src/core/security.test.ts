import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";
import { describe, expect, it, onTestFinished } from "vitest";
import { AppError } from "./errors.js";
import { generateApiKey, hashApiKey, hashPassword, resolveJwtSecret, TokenSigner, verifyPassword } from "./security.js";

describe("security", () => {
  it("hashes passwords with argon2id and verifies only the right one", async () => {
    const hash = await hashPassword("correct horse");
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hash, "correct horse")).toBe(true);
    expect(await verifyPassword(hash, "wrong horse")).toBe(false);
    expect(await verifyPassword("not-a-hash", "anything")).toBe(false);
  });

  it("signs tokens that verify, and rejects them under another secret", async () => {
    const signer = new TokenSigner("a".repeat(40), 60);
    const before = Date.now();
    const token = await signer.sign("user-1");
    const verified = await signer.verify(token);
    expect(verified.userId).toBe("user-1");
    // The expiry is the TTL from now, to the second.
    expect(verified.expiresAt.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 60_000);
    expect(verified.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    await expect(new TokenSigner("b".repeat(40), 60).verify(token)).rejects.toMatchObject({
      code: "AUTH_INVALID_TOKEN",
    });
    await expect(signer.verify(`${token}x`)).rejects.toBeInstanceOf(AppError);
  });

  it("refuses a token signed with the secret but without the studio's audience", async () => {
    const secret = "a".repeat(40);
    const signer = new TokenSigner(secret, 60);
    const key = new TextEncoder().encode(secret);
    const base = () =>
      new SignJWT({})
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("user-1")
        .setIssuer("superstep")
        .setExpirationTime("1h");
    expect((await signer.verify(await base().setAudience("superstep").sign(key))).userId).toBe("user-1");
    for (const token of [await base().sign(key), await base().setAudience(["other", "more"]).sign(key)]) {
      await expect(signer.verify(token)).rejects.toMatchObject({ code: "AUTH_INVALID_TOKEN" });
    }
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("user-1")
      .setIssuer("superstep")
      .setAudience("superstep")
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(key);
    await expect(signer.verify(expired)).rejects.toMatchObject({ code: "AUTH_TOKEN_EXPIRED" });
  });

  it("generates a JWT secret once and reuses it on the next start", () => {
    const dir = mkdtempSync(join(tmpdir(), "superstep-secret-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const first = resolveJwtSecret(null, dir);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(resolveJwtSecret(null, dir)).toBe(first);
    expect(statSync(join(dir, "jwt-secret")).mode & 0o777).toBe(0o600);
    expect(resolveJwtSecret("c".repeat(40), dir)).toBe("c".repeat(40));
    expect(readFileSync(join(dir, "jwt-secret"), "utf8").trim()).toBe(first);
  });

  it("replaces a stored secret that is too short to be safe", () => {
    const dir = mkdtempSync(join(tmpdir(), "superstep-secret-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "jwt-secret"), "short\n");
    expect(resolveJwtSecret(null, dir)).not.toBe("short");
  });

  it("makes distinct API keys with a recognisable prefix and a stable hash", () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).not.toBe(b);
    expect(a.startsWith("ssk_")).toBe(true);
    expect(hashApiKey(a)).toBe(hashApiKey(a));
    expect(hashApiKey(a)).not.toBe(hashApiKey(b));
  });
});
