/**
 * The PostgreSQL client (`pg`), loaded when a command first reaches a database ledger, and only
 * then (store/ledger-postgres.ts, store/coordination-postgres.ts).
 *
 * As it loads, pg asks whether it runs in a Cloudflare Worker (pg/lib/stream.js): it reads
 * `navigator.userAgent`, and where there is no `navigator` (Node 20; Node 21 and later have one)
 * it makes a `new Response()`, which loads the whole of Node's own fetch implementation (its
 * bundled undici): more than half of what connecting cost a command. While pg loads, Node 20 is
 * given the `navigator` later Nodes have (`userAgent` 'Node.js/<major>'), so pg knows it is on
 * Node without making a Response; it is taken away again once pg is loaded.
 */
import type pg from 'pg';

let loading: Promise<typeof pg> | undefined;

/** The client's module, loaded once. */
export function loadPg(): Promise<typeof pg> {
  loading ??= load();
  return loading;
}

async function load(): Promise<typeof pg> {
  const lent = !('navigator' in globalThis);
  if (lent)
    Object.defineProperty(globalThis, 'navigator', {
      value: Object.freeze({ userAgent: `Node.js/${process.versions.node.split('.')[0]}` }),
      configurable: true,
      writable: true,
      enumerable: false,
    });
  try {
    const loaded = await import('pg');
    return (loaded.default ?? loaded) as typeof pg;
  } finally {
    if (lent) delete (globalThis as { navigator?: unknown }).navigator;
  }
}
