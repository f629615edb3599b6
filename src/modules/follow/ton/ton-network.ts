import type { ChainNetwork } from '../../../config/config';
import type { BlockIdJson } from './toncenter-shapes';

/**
 * The networks' identities. Mainnet's zero state is the one in TON's global config
 * (`validator.zero_state` of global.config.json), and its blocks carry `global_id` −239; testnet's
 * zero state is testnet-global.config.json's and its `global_id` is −3.
 */
const MAINNET = {
  rootHash: 'F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk=',
  fileHash: 'XplPz01CXAps5qeSWUtxcyBfdAo5zVb1N979KLSKD24=',
  globalId: -239,
};
const TESTNET = {
  rootHash: 'gj+B8wb/AmlPk1z1AhVI484rhrUpgSr2oSFIh56VoSg=',
  fileHash: 'Z+IKwYS54DmmJmesw/nAD5DzWadnOCMzee+kdgSYDOg=',
  globalId: -3,
};

/**
 * Undefined when the API's node is on `network`, else why not (no URL in it). `mainnet`: the
 * masterchain's zero state (`getMasterchainInfo`'s `init`) must be mainnet's, and `global_id`
 * (asked once, from the latest block's header) −239. `localnet`: a local network says so by being
 * neither: its own zero state and a `global_id` other than mainnet's and testnet's.
 */
export function tonMismatch(
  network: ChainNetwork,
  init: BlockIdJson,
  globalId: number | undefined,
): string | undefined {
  const isMainnet = init.root_hash === MAINNET.rootHash && init.file_hash === MAINNET.fileHash;
  const isTestnet = init.root_hash === TESTNET.rootHash && init.file_hash === TESTNET.fileHash;
  if (network === 'mainnet') {
    if (!isMainnet) {
      return `the TON API's masterchain zero state is ${isTestnet ? 'testnet’s' : 'not mainnet’s'} while NETWORK_TON is mainnet`;
    }
    if (globalId !== undefined && globalId !== MAINNET.globalId) {
      return `the TON API's blocks have global_id ${globalId}, not mainnet's ${MAINNET.globalId}, while NETWORK_TON is mainnet`;
    }
    return undefined;
  }
  if (network === 'localnet') {
    if (isMainnet || isTestnet || globalId === MAINNET.globalId || globalId === TESTNET.globalId) {
      return `the TON API's node is on ${isMainnet || globalId === MAINNET.globalId ? 'mainnet' : 'testnet'} while NETWORK_TON is localnet`;
    }
    return undefined;
  }
  return `NETWORK_TON ${network} is not a TON network`;
}
