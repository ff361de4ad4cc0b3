/** The process entry: wires signals and the real streams, then runs the program. */
import v8 from 'node:v8';
// static: every run that reaches this file needs the program (bin/lbrl.js answers --version)
import { main } from './cli.js';
import { processContext } from './context.js';

const argv = process.argv.slice(2);

/** Exit once what was written has reached stdout and stderr (pipes are asynchronous). */
function exitAfterFlush(code: number): void {
  let pending = 2;
  const done = () => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

// undici's HTTP parser is WebAssembly; V8's optimising tier compiles it in the
// background and a short command then waits ~100 ms at exit for work it never uses.
v8.setFlagsFromString('--liftoff-only');

const controller = new AbortController();
let interrupts = 0;
const onSignal = () => {
  interrupts += 1;
  if (interrupts > 1) process.exit(130);
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

// A closed pipe on stdout (| head) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

const code = await main(argv, processContext(controller.signal));
exitAfterFlush(code);
