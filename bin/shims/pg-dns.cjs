// Bundled in place of node:dns for pg only (bin/build-program.mjs). pg requires it when it loads
// (pg/lib/connection-parameters.js), for the connection string it gives its native binding, which
// lbrl never uses; loading node:dns sets up c-ares (it reads /etc/resolv.conf) at every connection
// to the ledger, about 6M instructions, where a ledger at an address or a Unix socket needs no
// look-up at all (net loads node:dns itself for a host name). The real module is loaded at its
// first use, if ever.
module.exports = new Proxy({}, { get: (_target, name) => require('node:dns')[name] });
