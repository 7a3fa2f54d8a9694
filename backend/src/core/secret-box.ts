// Secrets at rest: AES-256-GCM with a random 96-bit nonce per value, bound to where the value
// belongs (additional data, e.g. the credential id and owner), and tagged with the id of the key
// that sealed it, so several keys can be read during a rotation. The key comes from
// STUDIO_ENCRYPTION_KEY, or from a key file generated in the data dir (mode 0600).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "./errors.js";

const KEY_FILE = "encryption-key";
const PREVIOUS_FILE = "encryption-key.previous";
const FORMAT = "v1";

/** 32 bytes written as hex (64 characters) or base64 (44 characters); null otherwise. */
export function decodeKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-f]{64}$/i.test(value)) return Buffer.from(value, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const key = Buffer.from(value, "base64");
    if (key.length === 32) return key;
  }
  return null;
}

export function keyId(key: Buffer): string {
  return createHash("sha256").update("superstep-secret-box\0").update(key).digest("hex").slice(0, 12);
}

export interface KeySource {
  /** STUDIO_ENCRYPTION_KEY, or null to use the key file. */
  configured: string | null;
  /** STUDIO_ENCRYPTION_KEY_PREVIOUS. */
  previous: readonly string[];
  dataDir: string;
}

interface Keyring {
  current: { id: string; key: Buffer };
  byId: Map<string, Buffer>;
}

function writePrivate(file: string, text: string): void {
  const temporary = `${file}.tmp-${process.pid}`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

function readKeys(file: string): Buffer[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => decodeKey(line))
    .filter((key): key is Buffer => key !== null);
}

function loadKeyring(source: KeySource): Keyring {
  let current: Buffer;
  const previous = source.previous.map((text) => decodeKey(text)).filter((key): key is Buffer => key !== null);
  if (source.configured) {
    const key = decodeKey(source.configured);
    if (!key) throw new AppError("CONFIG_INVALID", { variable: "STUDIO_ENCRYPTION_KEY" });
    current = key;
  } else {
    const file = join(source.dataDir, KEY_FILE);
    const stored = readKeys(file)[0];
    if (stored) {
      current = stored;
    } else {
      mkdirSync(source.dataDir, { recursive: true, mode: 0o700 });
      current = randomBytes(32);
      writePrivate(file, `${current.toString("base64")}\n`);
    }
    previous.push(...readKeys(join(source.dataDir, PREVIOUS_FILE)));
  }
  const byId = new Map<string, Buffer>();
  for (const key of [current, ...previous]) byId.set(keyId(key), key);
  return { current: { id: keyId(current), key: current }, byId };
}

export class SecretBox {
  readonly #source: KeySource;
  #keyring: Keyring;

  constructor(source: KeySource) {
    this.#source = source;
    this.#keyring = loadKeyring(source);
  }

  get currentKeyId(): string {
    return this.#keyring.current.id;
  }

  /** `v1.<key id>.<nonce>.<tag>.<ciphertext>`, base64url parts. */
  seal(plaintext: string, additionalData: string): string {
    const { id, key } = this.#keyring.current;
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, nonce);
    cipher.setAAD(Buffer.from(additionalData, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const parts = [nonce, cipher.getAuthTag(), ciphertext].map((b) => b.toString("base64url"));
    return [FORMAT, id, ...parts].join(".");
  }

  /** The key id a sealed value was written with. */
  static keyIdOf(sealed: string): string | null {
    const parts = sealed.split(".");
    return parts.length === 5 && parts[0] === FORMAT ? (parts[1] as string) : null;
  }

  /** Opens a sealed value; AppError CREDENTIAL_UNREADABLE when its key is unknown or it was altered. */
  open(sealed: string, additionalData: string): string {
    const [format, id, nonce, tag, ciphertext] = sealed.split(".");
    if (format !== FORMAT || !id || nonce === undefined || tag === undefined || ciphertext === undefined) {
      throw new AppError("CREDENTIAL_UNREADABLE", { reason: "not a sealed value" });
    }
    // The key file may have been rotated by `superstep rotate-key` while this process ran.
    if (!this.#keyring.byId.has(id) && !this.#source.configured) this.#keyring = loadKeyring(this.#source);
    const key = this.#keyring.byId.get(id);
    if (!key) throw new AppError("CREDENTIAL_UNREADABLE", { key_id: id });
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"));
      decipher.setAAD(Buffer.from(additionalData, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      throw new AppError("CREDENTIAL_UNREADABLE", { key_id: id, reason: "the value does not authenticate" });
    }
  }
}

/**
 * Starts a key-file rotation: the current key moves to the previous-keys file (still readable)
 * and a new key becomes current. Returns the new key's id. Only for the key-file mode.
 */
export function rotateKeyFile(dataDir: string): string {
  const file = join(dataDir, KEY_FILE);
  const previousFile = join(dataDir, PREVIOUS_FILE);
  const old = readKeys(file);
  const kept = [...readKeys(previousFile), ...old].map((key) => key.toString("base64"));
  if (kept.length > 0) writePrivate(previousFile, `${kept.join("\n")}\n`);
  const next = randomBytes(32);
  writePrivate(file, `${next.toString("base64")}\n`);
  return keyId(next);
}

/** Ends a rotation once every value is sealed with the current key. */
export function forgetPreviousKeyFile(dataDir: string): void {
  rmSync(join(dataDir, PREVIOUS_FILE), { force: true });
}
