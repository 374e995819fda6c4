/**
 * What the published repository asks before it reuses a kept site snapshot: a number that moves when a
 * committed write changed what snapshots are read from, or null while no process-wide signal is heard
 * (the repository then reads `published_generation`). `SnapshotFreshness` provides it; the port keeps
 * the repository below that listener, which registers with the write path (`SiteWrites`, `SpaceUnitOfWork`).
 */
export abstract class SnapshotEpoch {
  abstract epoch(): number | null;
}
