// Webhook endpoint routes: filled in by the webhooks work.
import { newRouter } from "./app.ts";

export function webhookRoutes() {
  return newRouter();
}
