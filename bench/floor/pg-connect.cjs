// The floor of what connecting to a ledger in PostgreSQL costs a command (bench/ledger-postgres.mjs):
// pg's Client alone, with nothing of lbrl's: load it, connect and authenticate (the URL's user and
// password, SCRAM on the bench's server), one `select 1`, end. pg is given the `navigator` later
// Nodes have while it loads, as lbrl gives it (src/store/pg-client.ts): without it, pg makes a
// Response on Node 20, which loads Node's own fetch, a cost of pg's check and not of connecting.
//
// CommonJS, as most scripts that use pg are: no ES module loader in its way.
//
//   node bench/floor/pg-connect.cjs <url>
const lent = !('navigator' in globalThis);
if (lent) globalThis.navigator = { userAgent: `Node.js/${process.versions.node.split('.')[0]}` };
const Client = require('pg/lib/client.js');
if (lent) delete globalThis.navigator;

(async () => {
  const client = new Client({ connectionString: process.argv[2] });
  await client.connect();
  await client.query('select 1');
  await client.end();
})();
