// What the staking and unstaking contracts read of the chain, in a file of its own so neither imports the other for it.
import type { HexAddress } from "../protocol/crypto.ts";
import type { WorldState } from "./state.ts";

export interface StakingContext {
  state: WorldState;
  /** Contract addresses cannot receive delegations. */
  isContract(address: HexAddress): boolean;
  time: number;
}
