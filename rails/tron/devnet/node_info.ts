// wallet/getnodeinfo: a lone node with no peers, shaped like java-tron's NodeInfo.
import type { Chain } from "./chain.ts";
import type { Json } from "../protocol/transaction.ts";

export function nodeInfoJson(chain: Chain): Json {
  const head = chain.head;
  const solid = chain.blocks[chain.solidifiedNumber];
  return {
    activeConnectCount: 0,
    beginSyncNum: head.number,
    block: `Num:${head.number},ID:${head.blockID}`,
    cheatWitnessInfoMap: {},
    configNodeInfo: {
      activeNodeSize: 0,
      allowAdaptiveEnergy: 0,
      allowCreationOfContracts: 1,
      backupListenPort: 10001,
      backupMemberSize: 0,
      backupPriority: 8,
      codeVersion: "4.7.7-devnet",
      dbVersion: 2,
      discoverEnable: false,
      listenPort: 18888,
      maxConnectCount: 30,
      maxTimeRatio: 5.0,
      minParticipationRate: 15,
      minTimeRatio: 0.0,
      p2pVersion: "11111",
      passiveNodeSize: 0,
      sameIpMaxConnectCount: 2,
      sendNodeSize: 0,
      supportConstant: true,
      versionNum: "18306",
    },
    currentConnectCount: 0,
    machineInfo: {
      cpuCount: navigator.hardwareConcurrency ?? 1,
      javaVersion: "devnet",
      osName: "devnet",
      threadCount: 1,
    },
    passiveConnectCount: 0,
    peerList: [],
    solidityBlock: `Num:${solid.number},ID:${solid.blockID}`,
    totalFlow: 0,
  };
}
