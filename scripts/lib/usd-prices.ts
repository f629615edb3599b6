/**
 * Round USD prices of the shipped tokens (src/database/reference-data.ts), for generated data
 * (examples/generate-demo.ts, bench/dataset/tokens.ts).
 */
export const SHIPPED_USD: Readonly<Record<string, number>> = {
  aptos: 8.42,
  binancecoin: 598.3,
  bitcoin: 67512.25,
  'bitcoin-cash': 471.9,
  dogecoin: 0.1597,
  ethereum: 3781.6,
  'polygon-ecosystem-token': 0.6789,
  solana: 166.35,
  sui: 1.021,
  tether: 1.0003,
  'the-open-network': 7.18,
  'usd-coin': 0.9998,
};
