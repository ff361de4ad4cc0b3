/** The process entry: wires signals and the real streams, then runs the program. */
import { main } from './cli.js';
import { processContext } from './context.js';

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

const code = await main(process.argv.slice(2), processContext(controller.signal));
process.exitCode = code;
if (controller.signal.aborted) process.exit(code);
