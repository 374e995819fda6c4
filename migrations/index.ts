import { Identity1763726400000 } from './1763726400000-identity';

/** Every migration, oldest first. `npm run migration:generate` prints a new one to add here. */
export const MIGRATIONS = [Identity1763726400000];
