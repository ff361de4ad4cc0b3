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

/** What lbrl uses of pg: its Client (one connection; no pool). */
export interface PgModule {
  Client: typeof pg.Client;
}

let loading: Promise<PgModule> | undefined;

/** The client's module, loaded once. */
export function loadPg(): Promise<PgModule> {
  loading ??= load();
  return loading;
}

async function load(): Promise<PgModule> {
  const lent = !('navigator' in globalThis);
  if (lent)
    Object.defineProperty(globalThis, 'navigator', {
      value: Object.freeze({ userAgent: `Node.js/${process.versions.node.split('.')[0]}` }),
      configurable: true,
      writable: true,
      enumerable: false,
    });
  try {
    // the Client's module alone, not pg's index: that one builds a Pool class (pg-pool) and
    // reads NODE_PG_FORCE_NATIVE, which would swap in the native client lbrl never has
    const loaded = (await import('pg/lib/client.js')) as { default?: typeof pg.Client } & typeof pg.Client;
    return { Client: loaded.default ?? loaded };
  } finally {
    if (lent) delete (globalThis as { navigator?: unknown }).navigator;
  }
}
