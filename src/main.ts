/** The process entry: wires signals and the real streams, then runs the program. */
// static: every run that reaches this file needs the program (bin/lbrl.js answers --version)
import { connectLedgerEarly } from './cli/ledger-early.js';
import { main, reportCrash } from './cli.js';
import { processContext } from './context.js';

const argv = process.argv.slice(2);
// a ledger in PostgreSQL: its server starts the connection's process while the program loads
connectLedgerEarly(argv, process.env);

/**
 * Exit once what was written has reached stdout and stderr (pipes are asynchronous). After
 * Ctrl-C or SIGTERM the run ends interrupted, whatever the command made of it; and the code
 * holds should a stream turn out closed as it is flushed.
 */
function exitAfterFlush(code: number): void {
  process.exitCode = interrupts > 0 ? INTERRUPTED : code;
  let pending = 2;
  const done = () => {
    pending -= 1;
    if (pending === 0) process.exit();
  };
  // a stdout found closed as it is flushed is ended by its 'error' listener (below), after the
  // command's whenStdoutGone said what was left: an export cut short by `| head` ends 141, not 0
  const flushed = (error?: Error | null) => {
    if (!error || !GONE_STREAM_CODES.has((error as NodeJS.ErrnoException).code ?? '')) done();
  };
  process.stdout.write('', flushed);
  process.stderr.write('', done);
}

const controller = new AbortController();
/** How long the program has, after Ctrl-C or SIGTERM, to say what it stopped before it is ended. */
const GRACE_MS = 700;
/** How a run that Ctrl-C or SIGTERM stopped ends (EXIT.interrupted), however it ends: a closed stream too. */
const INTERRUPTED = 130;
let interrupts = 0;
const onSignal = () => {
  interrupts += 1;
  process.exitCode = INTERRUPTED;
  if (interrupts > 1) process.exit(INTERRUPTED);
  controller.abort();
  // whatever still runs (a request that does not hear the abort) does not keep the process
  setTimeout(() => process.exit(INTERRUPTED), GRACE_MS).unref();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/**
 * A closed pipe on stdout (| head) is not an error worth a stack trace; a terminal that is gone
 * (EIO: the pty closed, ssh dropped) ends the process too, instead of it going on writing to no one.
 * The first such error ends it: there is no one left to tell.
 */
const GONE_STREAM_CODES = new Set(['EPIPE', 'EIO', 'ENXIO', 'EBADF', 'ECONNRESET', 'ERR_STREAM_DESTROYED']);
/** The terminal's own errors: it hung up. */
const HUNG_UP = new Set(['EIO', 'ENXIO']);

/**
 * The terminal hung up: no one reads what comes next. The process ends as one that did not catch
 * SIGHUP does, by the signal itself: process.exit would have Node put the terminal's settings
 * back, which fails on a hung-up terminal, and Node (before 24) then aborts: SIGABRT, and where
 * core dumps are on, a core file holding the token in the working directory.
 */
function hangUp(): never {
  process.removeAllListeners('SIGHUP');
  process.kill(process.pid, 'SIGHUP');
  // delivered before kill returns; should it not be, nothing Node does at exit may run
  process.kill(process.pid, 'SIGKILL');
  return process.exit(129);
}

for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    const code = error.code ?? '';
    if (HUNG_UP.has(code) && (stream as { isTTY?: boolean }).isTTY) hangUp();
    if (GONE_STREAM_CODES.has(code)) process.exit(process.exitCode ?? (stream === process.stdout ? 0 : 1));
  });
}
process.on('SIGHUP', hangUp);

/**
 * undici's HTTP parser is WebAssembly: on Node 20, V8's optimising tier compiles it in the
 * background, and a short command then waits ~100 ms at exit for work it never uses (a get counted
 * 750M instructions without the flag, 258M with it), so only the baseline tier runs. Changing a V8
 * flag makes every Node built-in module loaded afterwards miss Node's code cache (compiled again:
 * twice the cost), so the flag is set once the client and the built-ins it needs are loaded, with
 * the two undici loads only at its first connection: node:tls for an https service, node:dns for a
 * host name. Node 22, 24 and 26 leave no such compile (every thread counted, a get without the
 * flag: 241M against 241M, 242M against 246M, 245M against 245M), so there it is not set
 * (bench/README.md).
 */
const LIFTOFF_ONLY_PAYS = Number(process.versions.node.split('.')[0]) < 22;

async function liftoffOnly(baseUrl: string): Promise<void> {
  if (!LIFTOFF_ONLY_PAYS) return;
  const { hostname, protocol } = new URL(baseUrl);
  if (protocol === 'https:') await import('node:tls');
  const { isIP } = await import('node:net');
  if (isIP(hostname.replace(/^\[|\]$/g, '')) === 0) await import('node:dns');
  // loaded here, where the flag is set: node:v8 costs 7M to 9M instructions to load, which a
  // later Node, setting no flag, does not pay
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--liftoff-only');
}

// (not spread: that would read the context's stdin, which is made only when a command reads it)
const context = Object.assign(processContext(controller.signal), { clientLoaded: liftoffOnly });

/** What no command caught is said once, redacted and without a stack (Node's report is neither). */
let crashed = false;
const onCrash = (error: unknown) => {
  if (crashed) return;
  crashed = true;
  exitAfterFlush(reportCrash(error, argv, context));
};
process.on('uncaughtException', onCrash);
process.on('unhandledRejection', onCrash);

// no top-level await: the chunks are CommonJS (dist/program/, run by bin/lbrl.js)
main(argv, context).then(exitAfterFlush);
