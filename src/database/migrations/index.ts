import { Foundation1763700000000 } from './1763700000000-foundation';
import { Tags1763700000001 } from './1763700000001-tags';
import { Data1763700000002 } from './1763700000002-data';

/** Every migration, oldest first. */
export const MIGRATIONS = [Foundation1763700000000, Tags1763700000001, Data1763700000002];
