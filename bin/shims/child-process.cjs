// Bundled in place of node:child_process for commander only (scripts/build-program.mjs). commander
// requires it when it loads, for stand-alone executable subcommands, which lbrl has none of, and
// loading node:child_process (with node:dgram and node:net) costs every command about a sixth of
// what `node -e 0` costs. The real module is loaded at its first use, if ever.
module.exports = new Proxy({}, { get: (_target, name) => require('node:child_process')[name] });
