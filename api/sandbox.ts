// Sandbox routes: filled in by the sandbox work.
import { newRouter } from "./app.ts";

export function sandboxRoutes() {
  return newRouter();
}
