// Loaded with --import: the loader thread appends every ES module URL the process loads to
// LBRL_LOAD_LOG, synchronously, so nothing is lost when the process exits; at exit, the
// Node built-in modules it loaded follow as `node:<name>` lines.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import v8 from 'node:v8';

// built-ins loaded after a V8 flag change miss Node's code cache: those are listed as `late:<name>`,
// and each flag set as `flag:<flags>`
let flagAt = Number.POSITIVE_INFINITY;
const flagsSet = new Set();
const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => {
  flagAt = Math.min(flagAt, process.moduleLoadList.length);
  flagsSet.add(`flag:${flags}`);
  setFlags(flags);
};

// process.stdin is made on first read (a tty, socket or file stream): listed as `made:stdin`
let stdinMade = false;
const stdin = Object.getOwnPropertyDescriptor(process, 'stdin');
Object.defineProperty(process, 'stdin', {
  configurable: true,
  enumerable: stdin.enumerable,
  get() {
    stdinMade = true;
    return stdin.get.call(this);
  },
});

// a stack read (formatted), with its number of frames: placing a frame has V8 find every line of
// the frame's script, which a short command pays for: listed as `stack:<name>:<frames>`
const stacks = [];
Error.prepareStackTrace = (error, frames) => {
  stacks.push(`stack:${error?.name}:${frames.length}`);
  return `${error?.name}: ${error?.message}${frames.map((frame) => `\n    at ${frame}`).join('')}`;
};

process.on('exit', () => {
  const lines = process.moduleLoadList.flatMap((m, i) => {
    if (!m.startsWith('NativeModule ')) return [];
    const name = m.slice('NativeModule '.length);
    return [
      ...(name.startsWith('internal/') ? [] : [`node:${name}`]),
      ...(i >= flagAt ? [`late:${name}`] : []),
    ];
  });
  lines.push(...flagsSet);
  if (stdinMade) lines.push('made:stdin');
  lines.push(...stacks);
  appendFileSync(process.env.LBRL_LOAD_LOG, lines.map((l) => `${l}\n`).join(''));
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
