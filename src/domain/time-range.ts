/**
 * The moments lbrl's records may hold and every view shows, stated once: from 1970 to the last
 * moment of the year 9999 in UTC. That is what an ISO 8601 text with a four-digit year says, so
 * two such texts compare as their moments do, and what a view writes with a four-digit year: a
 * view in a zone ahead of UTC tells a moment past its own year 9999 in UTC (zoneOffsetMs).
 */
export const EARLIEST_MS = 0;
export const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Whether a moment (ms since the epoch) is one lbrl records and shows. */
export function isWithinTimeRange(ms: number): boolean {
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
}
