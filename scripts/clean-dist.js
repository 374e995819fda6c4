// Removes dist/ before a full build, so no file of a deleted source lingers in it (and the incremental
// build info, which lives there, goes with it).
require('node:fs').rmSync(require('node:path').join(__dirname, '..', 'dist'), { recursive: true, force: true });
