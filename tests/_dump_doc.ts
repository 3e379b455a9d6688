import { startTestGateway } from "./helpers.ts";
const gw = await startTestGateway();
await Deno.writeTextFile(Deno.args[0], (await gw.request("GET", "/v1/openapi.json")).text);
await gw.close();
