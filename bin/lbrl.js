#!/usr/bin/env node
// CommonJS (bin/package.json says so): `lbrl --version` and `lbrl <command> --help`, which people
// and scripts call often, are answered without starting Node's ES module loader or the program.
// Everything else is the ESM bundle in dist/.
const args = process.argv.slice(2);

/** Print, and take a closed pipe (lbrl --help | head -1) as the end of the output, as the program does. */
function print(text) {
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.stdout.write(text);
}

/** The help of `lbrl <path> --help`, written by the build from the program itself (npm run build). */
function helpPage() {
  const last = args[args.length - 1];
  if (last !== '--help' && last !== '-h') return undefined;
  const path = args.slice(0, -1);
  if (!path.every((word) => /^[a-z][a-z-]*$/.test(word))) return undefined;
  try {
    const pages = JSON.parse(require('node:fs').readFileSync(`${__dirname}/../dist/help.json`, 'utf8'));
    return Object.hasOwn(pages, path.join(' ')) ? pages[path.join(' ')] : undefined;
  } catch {
    return undefined; // not built yet: the program below says so
  }
}

const help = helpPage();
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  print(`${require('../package.json').version}\n`);
} else if (typeof help === 'string') {
  print(help);
} else {
  // Node 22.1+ keeps compiled code between runs; Node 20 has no such cache and skips this.
  require('node:module').enableCompileCache?.();
  import('../dist/lbrl.js').catch((error) => {
    process.stderr.write(`error: lbrl is not built (${error.message}); run npm run build\n`);
    process.exit(1);
  });
}
