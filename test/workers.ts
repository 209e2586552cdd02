/**
 * How many test files run at once: most of an integration test's time is spent waiting on other
 * processes (Postgres, NATS, the services it started), so up to twice as many as there are cores; fewer
 * while the machine is already busy beyond its cores (its 1-minute load average), down to two. A machine
 * still settling after start-up (load 11 on 2 cores) then runs two files at a time instead of four, and
 * a quiet one keeps the full width.
 */
export function testWorkers(cores: number, load1: number): number {
  const busyBeyondCores = Math.max(0, Math.round(load1) - cores);
  return Math.max(2, cores * 2 - busyBeyondCores);
}
