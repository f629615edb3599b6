export { ChainReader } from './chain-reader';
export type { RangeReading, ReaderOptions, TokenMetadata } from './chain-reader';
export { ChainMoved, holdingKey, NATIVE } from '../reading';
export type { BlockHeader, HoldingKey, ObservedTransfer, Reading } from '../reading';
