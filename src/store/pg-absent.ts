/**
 * Bundled in place of `pg-native` and `pg-cloudflare` (see the build in package.json): lbrl uses
 * node-postgres's pure JavaScript client on Node, never the native binding (a compiled addon) nor
 * the Cloudflare Workers socket. `pg` requires them only when asked for them, which lbrl never does.
 */
throw new Error('pg-native and pg-cloudflare are not bundled with lbrl');
