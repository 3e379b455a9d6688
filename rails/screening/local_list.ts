// Address screening against a local list: one blocked address per line, `#` starts a comment. The file
// is re-read when it changes, so an operator can add an address without a restart. A list that cannot be
// read is an outage (ScreeningUnavailable), never an empty list: screening fails closed.

export type ScreeningResult = { blocked: false } | { blocked: true; reason: string; source: string };

export interface Screening {
  screen(address: string): Promise<ScreeningResult>;
}

export class ScreeningUnavailable extends Error {}

/** No list configured: nothing is blocked (the operator chose not to screen; start-up says so). */
export const noScreening: Screening = { screen: () => Promise.resolve({ blocked: false }) };

export function createLocalListScreening(path: string): Screening {
  let cached: { mtimeMs: number; size: number; blocked: Set<string> } | undefined;
  async function load(): Promise<Set<string>> {
    let info: Deno.FileInfo;
    let text: string;
    try {
      info = await Deno.stat(path);
      if (cached && cached.mtimeMs === info.mtime?.getTime() && cached.size === info.size) {
        return cached.blocked;
      }
      text = await Deno.readTextFile(path);
    } catch (err) {
      throw new ScreeningUnavailable(`screening list ${path} cannot be read: ${(err as Error).name}`);
    }
    const blocked = new Set(
      text.split("\n").map((line) => line.replace(/#.*/, "").trim()).filter((line) => line.length > 0),
    );
    cached = { mtimeMs: info.mtime?.getTime() ?? 0, size: info.size, blocked };
    return blocked;
  }
  return {
    async screen(address) {
      const blocked = await load();
      return blocked.has(address)
        ? { blocked: true, reason: "LISTED", source: "local-list" }
        : { blocked: false };
    },
  };
}
