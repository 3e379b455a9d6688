// `deno task devnet`: serves the TRON devnet alone. The only place the devnet reads the environment.
import { createDevnet } from "./mod.ts";

const port = Number(Deno.env.get("DEVNET_PORT") ?? "9090");
const blockMs = Number(Deno.env.get("DEVNET_BLOCK_MS") ?? "3000");
const dataDir = Deno.env.get("DATA_DIR") ?? "./data";

const devnet = await createDevnet({ blockMs, dataDir });
devnet.start();
console.log(
  `TRON devnet on http://localhost:${port}/devnet (blocks every ${blockMs} ms, data in ${dataDir}/devnet)\n` +
    `customer ${devnet.customerAddress}, USDT contract ${devnet.usdtContract}`,
);
const server = Deno.serve({ port }, devnet.app.fetch);
const shutdown = async () => {
  await devnet.stop();
  await server.shutdown();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", shutdown);
Deno.addSignalListener("SIGTERM", shutdown);
