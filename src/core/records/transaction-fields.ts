/** The longest id, transaction hash or block hash a record may have (the import refuses longer). */
export const MAX_ID_LENGTH = 256;

/** The fields of a transaction (interface spec 2.4), in the order the API, the import and the table use. */
export const TRANSACTION_FIELDS = [
  'id',
  'chain',
  'token_address',
  'from_address',
  'to_address',
  'value',
  'tx_hash',
  'block_number',
  'block_hash',
  'block_time',
] as const;
