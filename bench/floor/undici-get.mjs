// The floor of `lbrl deposit get --json`: one GET with the same pieces of undici lbrl uses,
// bundled the way lbrl's build bundles them (bench/run.mjs builds it), and nothing else: no
// commander, no config, no validation. Prints the body.
import v8 from 'node:v8';
import request from 'undici/lib/api/api-request.js';
import Agent from 'undici/lib/dispatcher/agent.js';

v8.setFlagsFromString('--liftoff-only');
const [url, token] = process.argv.slice(2);
const u = new URL(url);
const res = await request.call(new Agent({ allowH2: false }), {
  origin: u.origin,
  path: u.pathname,
  method: 'GET',
  headers: { authorization: `Bearer ${token}` },
});
process.stdout.write(await res.body.text());
process.exit(0);
