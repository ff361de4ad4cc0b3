// Loaded with --import: the loader thread appends every ES module URL the process loads to
// LBRL_LOAD_LOG, synchronously, so nothing is lost when the process exits; at exit, the
// Node built-in modules it loaded follow as `node:<name>` lines.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';

process.on('exit', () => {
  const builtins = process.moduleLoadList
    .filter((m) => m.startsWith('NativeModule ') && !m.includes(' internal/'))
    .map((m) => `node:${m.slice('NativeModule '.length)}\n`);
  appendFileSync(process.env.LBRL_LOAD_LOG, builtins.join(''));
});

register(
  `data:text/javascript,${encodeURIComponent(`
    import { appendFileSync } from 'node:fs';
    let log;
    export function initialize(data) { log = data.log; }
    export async function load(url, context, next) { appendFileSync(log, url + '\\n'); return next(url, context); }
  `)}`,
  { data: { log: process.env.LBRL_LOAD_LOG } },
);
