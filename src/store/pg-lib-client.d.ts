// pg's Client module on its own (pg/lib/client.js, in pg's exports map); @types/pg types only its index.
declare module 'pg/lib/client.js' {
  import type pg from 'pg';

  const Client: typeof pg.Client;
  export = Client;
}
