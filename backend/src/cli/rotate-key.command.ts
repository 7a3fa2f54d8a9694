// `superstep rotate-key`: re-encrypts every stored credential with a new key. With the key file
// (no STUDIO_ENCRYPTION_KEY) it also makes the new key; with STUDIO_ENCRYPTION_KEY, set the new
// key there and the old one in STUDIO_ENCRYPTION_KEY_PREVIOUS first. Stop the studio first.
import { parseArgs } from "node:util";
import { loadConfig } from "../core/config.js";
import { forgetPreviousKeyFile, rotateKeyFile, SecretBox } from "../core/secret-box.js";
import { CredentialRepository } from "../repositories/credential.repository.js";
import { migrateToLatest, openDatabase } from "../repositories/database.js";
import { CredentialService } from "../services/credential.service.js";
import { EXIT } from "./exit-codes.js";

export async function rotateKeyCommand(args: string[]): Promise<number> {
  parseArgs({ args, allowPositionals: false, options: {} });
  const config = loadConfig();
  const database = openDatabase(config);
  try {
    await migrateToLatest(database.db, database.kind);
    const keyFile = config.encryptionKey === null;
    if (keyFile) rotateKeyFile(config.dataDir);
    const box = new SecretBox({
      configured: config.encryptionKey,
      previous: config.encryptionKeysPrevious,
      dataDir: config.dataDir,
    });
    const credentials = new CredentialService({ credentials: new CredentialRepository(database.db), box });
    const { resealed, unreadable } = await credentials.resealAll();
    console.log(`Re-encrypted ${resealed} credential${resealed === 1 ? "" : "s"} with key ${box.currentKeyId}.`);
    if (unreadable.length > 0) {
      console.error(
        `${unreadable.length} credential${unreadable.length === 1 ? "" : "s"} could not be opened with any key loaded ` +
          `(${unreadable.join(", ")}): ${keyFile ? "the previous key file is kept" : "add the key they were stored with to STUDIO_ENCRYPTION_KEY_PREVIOUS"} and run this again.`,
      );
      return EXIT.FAILED;
    }
    if (keyFile) forgetPreviousKeyFile(config.dataDir);
    else if (config.encryptionKeysPrevious.length > 0)
      console.log("Every credential uses the current key: STUDIO_ENCRYPTION_KEY_PREVIOUS can be removed.");
    return EXIT.OK;
  } finally {
    await database.close();
  }
}
