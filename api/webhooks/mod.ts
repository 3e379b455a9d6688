// /v1/webhooks: endpoints (register, list, get, update, delete, rotate-secret, reactivate), test
// deliveries, the delivery log with manual retry, and the event catalogue. Endpoints belong to the
// mode of the key used.
import { newRouter } from "../router.ts";
import { deliveryRoutes } from "./deliveries.ts";
import { endpointRoutes } from "./endpoints.ts";
import { eventCatalogueRoutes } from "./events.ts";

export function webhookRoutes() {
  const r = newRouter();
  // Registration order is the order of the paths in the OpenAPI document: endpoints first, as before.
  endpointRoutes(r);
  deliveryRoutes(r);
  eventCatalogueRoutes(r);
  return r;
}
