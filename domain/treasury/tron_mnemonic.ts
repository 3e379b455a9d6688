// The HD seed of every deposit address. Production requires TRON_MNEMONIC (config.ts enforces it); in
// development one is generated once and kept encrypted in the database, so addresses survive restarts.
import { getSetting, putSettingOnce } from "../../db/settings.ts";
import type { Db } from "../../db/mod.ts";
import { generateMnemonic, isValidMnemonic } from "../../rails/tron/hd.ts";
import type { SecretBox } from "../crypto.ts";

const SETTING = "tron_mnemonic";

export async function loadTronMnemonic(
  db: Db,
  secrets: SecretBox,
  configured: string | undefined,
): Promise<string> {
  if (configured) {
    if (!isValidMnemonic(configured)) throw new Error("TRON_MNEMONIC is not a valid BIP39 mnemonic");
    return configured;
  }
  const stored = await getSetting(db, SETTING);
  if (stored) return await secrets.decrypt(stored);
  return await secrets.decrypt(await putSettingOnce(db, SETTING, await secrets.encrypt(generateMnemonic())));
}
