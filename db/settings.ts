// SQL for app_settings: values the gateway generates for itself (encrypted where secret).
import type { Db } from "./mod.ts";

export async function getSetting(db: Db, key: string): Promise<string | undefined> {
  return (await db.query<{ value: string }>("SELECT value FROM app_settings WHERE key = $1", [key]))[0]
    ?.value;
}

/** Stores the value unless one exists; answers whichever value is stored (first writer wins). */
export async function putSettingOnce(db: Db, key: string, value: string): Promise<string> {
  await db.query("INSERT INTO app_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", [
    key,
    value,
  ]);
  return (await getSetting(db, key))!;
}
