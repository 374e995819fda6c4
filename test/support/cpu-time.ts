/**
 * Milliseconds of CPU `run` took (this process's user and system time), for the tests that check work stays linear
 * in its input: a loaded machine makes the work wait for a core, which wall time would count and CPU time does not.
 */
export function cpuMillis(run: () => unknown): number {
  const started = process.cpuUsage();
  run();
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}
