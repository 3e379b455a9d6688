// Objects as files under one directory (written to a temporary name, then renamed: never half a file).
import { OBJECT_KEY, type ObjectStorage } from "./types.ts";

const TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", webp: "image/webp" };

export function directoryStorage(dir: string): ObjectStorage {
  const pathOf = (key: string) => {
    if (!OBJECT_KEY.test(key)) throw new Error("invalid object key");
    return `${dir}/${key.slice(0, 2)}/${key}`;
  };
  return {
    async put(key, bytes) {
      const path = pathOf(key);
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      const temp = `${path}.${crypto.randomUUID()}.tmp`;
      await Deno.writeFile(temp, bytes);
      await Deno.rename(temp, path);
    },
    async get(key) {
      try {
        const bytes = await Deno.readFile(pathOf(key));
        return { bytes, contentType: TYPES[key.split(".").pop()!] ?? "application/octet-stream" };
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return null;
        throw err;
      }
    },
  };
}
