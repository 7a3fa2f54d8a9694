import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "./errors.js";
import { decodeKey, forgetPreviousKeyFile, keyId, rotateKeyFile, SecretBox } from "./secret-box.js";

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "superstep-box-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function unreadable(open: () => unknown): AppError {
  let caught: unknown;
  try {
    open();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppError);
  expect((caught as AppError).code).toBe("CREDENTIAL_UNREADABLE");
  return caught as AppError;
}

const HEX_KEY = "11".repeat(32);

describe("secret box", () => {
  it("seals with AES-256-GCM under a random nonce and opens only with the same binding", () => {
    const box = new SecretBox({ configured: HEX_KEY, previous: [], dataDir: dataDir() });
    const a = box.seal('{"api_key":"sk-1"}', "credential:1:owner");
    const b = box.seal('{"api_key":"sk-1"}', "credential:1:owner");
    expect(a).not.toBe(b);
    expect(a).not.toContain("sk-1");
    expect(a.split(".")).toHaveLength(5);
    expect(SecretBox.keyIdOf(a)).toBe(box.currentKeyId);
    expect(box.open(a, "credential:1:owner")).toBe('{"api_key":"sk-1"}');
    unreadable(() => box.open(a, "credential:2:owner"));
    const [format, id, nonce, tag, body] = a.split(".") as string[];
    const flipped = Buffer.from(body as string, "base64url");
    flipped[0] = (flipped[0] as number) ^ 1;
    unreadable(() => box.open([format, id, nonce, tag, flipped.toString("base64url")].join("."), "credential:1:owner"));
    unreadable(() => box.open("not sealed", "x"));
  });

  it("says which key is missing instead of guessing", () => {
    const sealed = new SecretBox({ configured: HEX_KEY, previous: [], dataDir: dataDir() }).seal("x", "y");
    const other = new SecretBox({ configured: "22".repeat(32), previous: [], dataDir: dataDir() });
    expect(unreadable(() => other.open(sealed, "y")).details).toEqual({ key_id: keyId(Buffer.from(HEX_KEY, "hex")) });
  });

  it("reads values sealed with a previous key listed in STUDIO_ENCRYPTION_KEY_PREVIOUS", () => {
    const sealed = new SecretBox({ configured: HEX_KEY, previous: [], dataDir: dataDir() }).seal("old", "y");
    const rotated = new SecretBox({
      configured: Buffer.alloc(32, 9).toString("base64"),
      previous: [HEX_KEY],
      dataDir: dataDir(),
    });
    expect(rotated.open(sealed, "y")).toBe("old");
    expect(SecretBox.keyIdOf(rotated.seal("new", "y"))).toBe(rotated.currentKeyId);
  });

  it("generates a private key file once and keeps using it", () => {
    const dir = dataDir();
    const first = new SecretBox({ configured: null, previous: [], dataDir: dir });
    const file = join(dir, "encryption-key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(decodeKey(readFileSync(file, "utf8"))).not.toBeNull();
    const again = new SecretBox({ configured: null, previous: [], dataDir: dir });
    expect(again.currentKeyId).toBe(first.currentKeyId);
    expect(again.open(first.seal("kept", "z"), "z")).toBe("kept");
  });

  it("rotates the key file: the old key stays readable until the rotation is finished", () => {
    const dir = dataDir();
    const before = new SecretBox({ configured: null, previous: [], dataDir: dir });
    const sealed = before.seal("value", "z");
    const newId = rotateKeyFile(dir);
    expect(newId).not.toBe(before.currentKeyId);
    expect(statSync(join(dir, "encryption-key.previous")).mode & 0o777).toBe(0o600);
    const during = new SecretBox({ configured: null, previous: [], dataDir: dir });
    expect(during.currentKeyId).toBe(newId);
    expect(during.open(sealed, "z")).toBe("value");
    forgetPreviousKeyFile(dir);
    expect(existsSync(join(dir, "encryption-key.previous"))).toBe(false);
    unreadable(() => new SecretBox({ configured: null, previous: [], dataDir: dir }).open(sealed, "z"));
  });

  it("picks up a key file rotated while it runs", () => {
    const dir = dataDir();
    const running = new SecretBox({ configured: null, previous: [], dataDir: dir });
    rotateKeyFile(dir);
    const resealed = new SecretBox({ configured: null, previous: [], dataDir: dir }).seal("new", "z");
    expect(running.open(resealed, "z")).toBe("new");
  });

  it("accepts 32-byte keys in hex or base64 only", () => {
    expect(decodeKey(HEX_KEY)?.length).toBe(32);
    expect(decodeKey(Buffer.alloc(32, 1).toString("base64"))?.length).toBe(32);
    expect(decodeKey(Buffer.alloc(32, 1).toString("base64url"))?.length).toBe(32);
    expect(decodeKey("11".repeat(31))).toBeNull();
    expect(decodeKey(Buffer.alloc(31, 1).toString("base64"))).toBeNull();
    expect(decodeKey("correct horse battery staple")).toBeNull();
  });
});
