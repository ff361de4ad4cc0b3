// Loaded with --import: the loader thread appends every ES module URL the process loads to
// LBRL_LOAD_LOG, synchronously, so nothing is lost when the process exits.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
    import { appendFileSync } from 'node:fs';
    let log;
    export function initialize(data) { log = data.log; }
    export async function load(url, context, next) { appendFileSync(log, url + '\\n'); return next(url, context); }
  `)}`,
  { data: { log: process.env.LBRL_LOAD_LOG } },
);
