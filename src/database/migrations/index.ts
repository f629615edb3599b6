import { Foundation1763700000000 } from './1763700000000-foundation';

/** Every migration, oldest first. */
export const MIGRATIONS = [Foundation1763700000000];
