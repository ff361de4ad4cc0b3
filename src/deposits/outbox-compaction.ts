/**
 * Keeping `lbrl listen`'s outbox small: once it holds much more than it needs, it is rewritten
 * with only the events not yet delivered (with their tries), the last KEEP_DELIVERED delivered ones
 * (for --replay), and what was said of the deposits listen is not done with, or was done with
 * since `since`; `since` moves up to an hour before the newest deposit of the history's last look.
 * What "done with" means for a deposit is here too (`listenDoneWith`), the one rule the hub and
 * the compaction share.
 */
import type { OutboxRecord, OutboxState, OutboxStore, SeenRecord } from '../store/outbox.js';
import { GONE } from './watch.js';

/** How many delivered events the outbox keeps for `--replay` after compacting. */
export const KEEP_DELIVERED = 1000;
/**
 * Compacting moves `since` up to this long before the last look at the history: a deposit created
 * before it was pending then, so listen follows it until done, and need not remember it after.
 */
export const SINCE_MARGIN_MS = 3600 * 1000;
/** The outbox is compacted once it has this many lines more than it needs. */
const COMPACT_SLACK = 4000;

/**
 * listen is done with the deposit: no more events will come of it. A deposit closed because the
 * service once said it did not know it (GONE, as earlier versions did) is not done: it is
 * followed again, since a service that lost it for a while may find it.
 */
export function listenDoneWith(seen: SeenRecord | undefined): boolean {
  return seen?.closed === true && seen.status !== GONE;
}

/** What the hub's last look at the history said, and its clock. */
export interface CompactionLook {
  /** the newest creation date the history held when the hub last read it */
  lastLook: string | undefined;
  /** when each deposit the last look listed was created, as the history says */
  createdAt: ReadonlyMap<string, string>;
  now(): number;
  /** now, as the outbox's records write it */
  iso(): string;
}

/**
 * Compacts the outbox when it holds much more than it needs (or always, with `force`): the events
 * not yet delivered, the last KEEP_DELIVERED delivered ones (for --replay), and what was said of
 * the deposits listen is not done with or was done with since `since`.
 */
export function compactOutbox(
  state: OutboxState,
  outbox: OutboxStore,
  look: CompactionLook,
  force: boolean,
): void {
  let since = state.since ?? '';
  const last = look.lastLook === undefined ? Number.NaN : Date.parse(look.lastLook);
  if (Number.isFinite(last)) {
    // an hour before the newest deposit of the last look; never past the wall clock's now,
    // so that one of the two, right, keeps it from running ahead
    const moved = new Date(Math.min(last, look.now()) - SINCE_MARGIN_MS).toISOString();
    if (moved > since) since = moved;
  }
  /** done with, and created (as the last look said) no later than `since`: never covered again */
  const forgettable = (id: string, seen: SeenRecord) => {
    if (!listenDoneWith(seen) || look.lastLook === undefined) return false;
    const created = look.createdAt.get(id);
    return created === undefined || created <= since;
  };
  let remembered = 0;
  for (const [id, seen] of state.seen) if (!forgettable(id, seen)) remembered += 1;
  const needed = pendingEvents(state) + KEEP_DELIVERED * 2 + remembered;
  // twice what is needed: each rewrite is paid for by as many lines appended since
  if (!force && state.lines <= 2 * needed + COMPACT_SLACK) return;
  const records: OutboxRecord[] = state.since === undefined ? [] : [{ v: 1, type: 'since', at: since }];
  // followed until done with: then its closed seen record says all there is to say
  for (const id of state.following) {
    if (listenDoneWith(state.seen.get(id))) state.following.delete(id);
    else records.push({ v: 1, type: 'follow', deposit: id, at: look.iso() });
  }
  for (const [id, seen] of state.seen) {
    if (forgettable(id, seen)) state.seen.delete(id);
    else records.push(seen);
  }
  records.push(...keptEvents(state));
  outbox.rewrite(records);
  if (state.since !== undefined) state.since = since;
  state.lines = records.length;
}

/** The events kept: the undelivered with their tries, the last KEEP_DELIVERED delivered; the others forgotten. */
function keptEvents(state: OutboxState): OutboxRecord[] {
  const records: OutboxRecord[] = [];
  const delivered = [...state.events.values()].filter((e) => e.state === 'done');
  const keep = new Set(delivered.slice(-KEEP_DELIVERED).map((e) => e.record.id));
  for (const [id, queued] of state.events) {
    if (queued.state === 'pending') {
      records.push(queued.record);
      const tried = state.tried.get(id);
      if (tried) records.push({ v: 1, type: 'retry', id, at: queued.record.at, ...tried });
    } else if (keep.has(id))
      records.push(queued.record, { v: 1, type: 'done', id, at: queued.record.at, http: 200 });
    else state.events.delete(id);
  }
  return records;
}

function pendingEvents(state: OutboxState): number {
  let count = 0;
  for (const e of state.events.values()) if (e.state === 'pending') count += 1;
  return count;
}
