// Credential storage and key rotation on a real database (SQLite and PostgreSQL).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import type { Actor } from "../core/authz.js";
import { forgetPreviousKeyFile, rotateKeyFile, SecretBox } from "../core/secret-box.js";
import { CredentialRepository } from "../repositories/credential.repository.js";
import { UserRepository } from "../repositories/user.repository.js";
import { CredentialService } from "./credential.service.js";

let database: TestDatabase;
let dataDir: string;
let actor: Actor;

beforeEach(async () => {
  database = await openTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), "superstep-cred-"));
  const user = await new UserRepository(database.db).create(
    { email: "a@example.com", name: null, passwordHash: "x", role: "owner" },
    { onlyIfNone: false },
  );
  if (!user.ok) throw new Error("no user");
  actor = { userId: user.user.id, role: "owner", via: "session" };
});
afterEach(async () => {
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function service(box: SecretBox): CredentialService {
  return new CredentialService({ credentials: new CredentialRepository(database.db), box });
}

async function sealedKeyIds(): Promise<(string | null)[]> {
  const rows = await database.db.selectFrom("credentials").select("secret").execute();
  return rows.map((row) => SecretBox.keyIdOf(row.secret));
}

describe("credential service", () => {
  it("opens a credential only for its owner", async () => {
    const credentials = service(new SecretBox({ configured: null, previous: [], dataDir }));
    const created = await credentials.create(actor, { name: "mine", type: "openai", data: { api_key: "sk-own-1234" } });
    expect(await credentials.resolverFor(actor.userId)(created.id)).toMatchObject({
      type: "openai",
      data: { api_key: "sk-own-1234" },
    });
    expect(await credentials.resolverFor("someone-else")(created.id)).toBeUndefined();
    expect(await credentials.typeFor(actor.userId)(created.id)).toBe("openai");
    expect(await credentials.typeFor("someone-else")(created.id)).toBeUndefined();
  });

  it("re-encrypts every credential with a new key file, then forgets the old key", async () => {
    const before = new SecretBox({ configured: null, previous: [], dataDir });
    const credentials = service(before);
    const ids = [];
    for (const n of [1, 2, 3]) {
      ids.push(
        (await credentials.create(actor, { name: `c${n}`, type: "http_bearer", data: { token: `token-${n}-xyz` } })).id,
      );
    }
    expect(new Set(await sealedKeyIds())).toEqual(new Set([before.currentKeyId]));

    const newId = rotateKeyFile(dataDir);
    const after = new SecretBox({ configured: null, previous: [], dataDir });
    expect(await service(after).resealAll()).toEqual({ resealed: 3, unreadable: [] });
    expect(new Set(await sealedKeyIds())).toEqual(new Set([newId]));
    forgetPreviousKeyFile(dataDir);

    const fresh = service(new SecretBox({ configured: null, previous: [], dataDir }));
    for (const [i, id] of ids.entries()) {
      expect((await fresh.resolverFor(actor.userId)(id))?.data).toEqual({ token: `token-${i + 1}-xyz` });
    }
    // Nothing left under an old key: a second pass has nothing to do.
    expect(await fresh.resealAll()).toEqual({ resealed: 0, unreadable: [] });
  });

  it("rotates STUDIO_ENCRYPTION_KEY with the old key in STUDIO_ENCRYPTION_KEY_PREVIOUS", async () => {
    const oldKey = "33".repeat(32);
    const newKey = "44".repeat(32);
    const created = await service(new SecretBox({ configured: oldKey, previous: [], dataDir })).create(actor, {
      name: "smtp",
      type: "smtp",
      data: { host: "mail.example.com", port: 587, secure: false, username: "u", password: "mail-password" },
    });
    const withoutOld = service(new SecretBox({ configured: newKey, previous: [], dataDir }));
    expect(await withoutOld.resealAll()).toEqual({ resealed: 0, unreadable: [created.id] });
    await expect(withoutOld.resolverFor(actor.userId)(created.id)).rejects.toMatchObject({
      code: "CREDENTIAL_UNREADABLE",
    });

    expect(await service(new SecretBox({ configured: newKey, previous: [oldKey], dataDir })).resealAll()).toEqual({
      resealed: 1,
      unreadable: [],
    });
    const opened = await withoutOld.resolverFor(actor.userId)(created.id);
    expect(opened?.data).toMatchObject({ host: "mail.example.com", password: "mail-password" });
  });
});
