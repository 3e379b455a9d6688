// `deno task devnet`: serves the TRON devnet alone. The only place the devnet reads the environment.
import { createDevnet } from "./mod.ts";

const port = Number(Deno.env.get("DEVNET_PORT") ?? "9090");
const blockMs = Number(Deno.env.get("DEVNET_BLOCK_MS") ?? "3000");
const dataDir = Deno.env.get("DATA_DIR") ?? "./data";
// DEVNET_SPEAK_AS=nile (or mainnet): block 0 and the USDT contract as that network's, for trying a gateway
// configured with TRON_NETWORK=nile against it (README, Deploying). Fixed at the chain's first start.
const speakAsEnv = Deno.env.get("DEVNET_SPEAK_AS") ?? "";
if (speakAsEnv !== "" && speakAsEnv !== "nile" && speakAsEnv !== "mainnet") {
  console.error(`DEVNET_SPEAK_AS must be nile or mainnet (or unset), not ${JSON.stringify(speakAsEnv)}`);
  Deno.exit(1);
}
const speakAs = speakAsEnv === "" ? undefined : speakAsEnv;

const devnet = await createDevnet({ blockMs, dataDir, speakAs });
devnet.start();
console.log(
  `TRON devnet on http://localhost:${port}/devnet (blocks every ${blockMs} ms, data in ${dataDir}/devnet)\n` +
    `customer ${devnet.customerAddress}, USDT contract ${devnet.usdtContract}, genesis ${devnet.genesisBlockId}`,
);
const server = Deno.serve({ port }, devnet.app.fetch);
const shutdown = async () => {
  await devnet.stop();
  await server.shutdown();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", shutdown);
Deno.addSignalListener("SIGTERM", shutdown);
