#!/usr/bin/env node
// CommonJS (bin/package.json says so): `lbrl --version`, which scripts call often, is answered
// without starting Node's ES module loader. Everything else is the ESM bundle in dist/.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  // Node 22.1+ keeps compiled code between runs; Node 20 has no such cache and skips this.
  require('node:module').enableCompileCache?.();
  import('../dist/lbrl.js').catch((error) => {
    process.stderr.write(`error: lbrl is not built (${error.message}); run npm run build\n`);
    process.exit(1);
  });
}
