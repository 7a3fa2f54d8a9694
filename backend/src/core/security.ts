// Password hashes, session tokens and API key material. Nothing here touches the database.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import argon2 from "argon2";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { AppError } from "./errors.js";

const JWT_ISSUER = "superstep";
// Tokens name who they are for: a token minted for anything else with the same secret is refused.
const JWT_AUDIENCE = "superstep";
const JWT_SECRET_FILE = "jwt-secret";
export const API_KEY_PREFIX = "ssk_";

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

// A fixed hash verified when the email is unknown, so a failed login takes the same time
// whether or not the account exists.
let decoyHash: Promise<string> | null = null;
export async function verifyDecoyPassword(password: string): Promise<void> {
  decoyHash ??= hashPassword(randomBytes(16).toString("hex"));
  await verifyPassword(await decoyHash, password);
}

/** The configured secret, or one generated on first start and kept in the data dir (mode 0600). */
export function resolveJwtSecret(configured: string | null, dataDir: string): string {
  if (configured) return configured;
  const file = join(dataDir, JWT_SECRET_FILE);
  if (existsSync(file)) {
    const stored = readFileSync(file, "utf8").trim();
    if (stored.length >= 32) return stored;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

/** What a valid session token says: whose it is and when it stops being valid. */
export interface VerifiedToken {
  userId: string;
  expiresAt: Date;
}

export class TokenSigner {
  readonly #key: Uint8Array;
  readonly #ttlSeconds: number;

  constructor(secret: string, ttlSeconds: number) {
    this.#key = new TextEncoder().encode(secret);
    this.#ttlSeconds = ttlSeconds;
  }

  sign(userId: string): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(userId)
      .setIssuer(JWT_ISSUER)
      .setAudience(JWT_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.#ttlSeconds}s`)
      .sign(this.#key);
  }

  /** The user and expiry of a valid token; AUTH_TOKEN_EXPIRED or AUTH_INVALID_TOKEN otherwise. */
  async verify(token: string): Promise<VerifiedToken> {
    try {
      // Only HS256 is accepted: `alg: none` and every other algorithm fail here. A token without
      // our audience, or without an expiry, is refused.
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ["HS256"],
        issuer: JWT_ISSUER,
        audience: JWT_AUDIENCE,
        requiredClaims: ["sub", "exp"],
      });
      if (typeof payload.sub !== "string" || payload.sub === "" || typeof payload.exp !== "number") {
        throw new AppError("AUTH_INVALID_TOKEN");
      }
      return { userId: payload.sub, expiresAt: new Date(payload.exp * 1000) };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new AppError("AUTH_TOKEN_EXPIRED");
      throw new AppError("AUTH_INVALID_TOKEN");
    }
  }
}

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** API keys carry 256 random bits, so a fast hash is enough and allows lookup by hash. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function generateCallbackSecret(): string {
  return `whsec_${randomBytes(24).toString("base64url")}`;
}

/** X-Studio-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">. */
export function signCallback(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}
