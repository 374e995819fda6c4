import { Identity1763726400000 } from './1763726400000-identity';
import { ContentContainers1763726401000 } from './1763726401000-content-containers';

/** Every migration, oldest first. `npm run migration:generate` prints a new one to add here. */
export const MIGRATIONS = [Identity1763726400000, ContentContainers1763726401000];
