/** The year the dataset's prices, holdings and transactions fall in. */
export const START = Date.UTC(2025, 0, 1);
export const DAY_MS = 86_400_000;
export const SPAN_MS = 365 * DAY_MS;
