/**
 * RFC 9110 (15.2): a client reads and skips every interim (1xx) answer that comes before the
 * final one, asked for or not. undici's HTTP/1.1 parser destroys the connection on a `100
 * Continue` it did not ask for (it only knows 100 as the reply to `Expect: 100-continue`), which
 * would turn a create that reached the service into "a deposit may exist". So the socket undici
 * reads from hands it each answer without the interim ones in front.
 *
 * undici writes one request at a time on a connection (pipelining 1) and starts each with its
 * request line, so the next bytes the server sends after that line are the start of an answer:
 * that is where interim answers are looked for. `101 Switching Protocols` is not skipped: lbrl
 * never asks to switch, and undici refuses it as it should.
 */
import type { Socket } from 'node:net';

/** An interim head larger than this is not skipped (undici then refuses it as it would). */
const MAX_INTERIM_HEAD = 16 * 1024;
const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.1\r\n/;
/** What an interim status line starts with: `HTTP/1.x 1dd` then a space or the line's end. */
const TEMPLATE = 'HTTP/1.? 1?? ';

type HeadKind = 'interim' | 'final' | 'more';

/** Whether `head` (the first bytes of an answer) is an interim answer, not one, or too short to say. */
export function classifyHead(head: Buffer): HeadKind {
  const compared = Math.min(head.length, TEMPLATE.length);
  for (let i = 0; i < compared; i++) {
    const got = head[i] as number;
    const want = TEMPLATE.charCodeAt(i);
    let ok: boolean;
    if (i === 7)
      ok = got === 0x30 || got === 0x31; // HTTP/1.0 or HTTP/1.1
    else if (i === 10 || i === 11) ok = got >= 0x30 && got <= 0x39;
    else if (i === 12) ok = got === 0x20 || got === 0x0d;
    else ok = got === want;
    if (!ok) return 'final';
  }
  if (head.length < TEMPLATE.length) return 'more';
  // 101 changes the protocol: never skipped
  return head[10] === 0x30 && head[11] === 0x31 ? 'final' : 'interim';
}

const END_OF_HEAD = Buffer.from('\r\n\r\n');

/**
 * Strip the interim answers at the front of `held`. `rest` is what may go to the parser
 * (undefined: more bytes are needed); `atStart` says whether the next bytes still start an answer.
 */
export function stripInterim(held: Buffer): { rest: Buffer | undefined; atStart: boolean } {
  let buf = held;
  for (;;) {
    const verdict = classifyHead(buf);
    if (verdict === 'final') return { rest: buf, atStart: false };
    if (verdict === 'more') return { rest: buf.length === 0 ? buf : undefined, atStart: true };
    const end = buf.indexOf(END_OF_HEAD);
    if (end < 0) {
      // the parser sees an oversized head as it is, and refuses it
      if (buf.length > MAX_INTERIM_HEAD) return { rest: buf, atStart: false };
      return { rest: undefined, atStart: true };
    }
    buf = buf.subarray(end + END_OF_HEAD.length);
    if (buf.length === 0) return { rest: buf, atStart: true };
  }
}

/** Make `socket.read()` skip interim answers; undici reads the socket only through read(). */
export function skipInterimAnswers(socket: Socket): Socket {
  let atStart = true;
  let held: Buffer | undefined;
  const read = socket.read.bind(socket);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.read = (size?: number) => {
    if (!atStart && held === undefined) return read(size);
    for (;;) {
      const chunk = read(size) as Buffer | string | null;
      if (chunk === null) return null;
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
      const all = held === undefined ? bytes : Buffer.concat([held, bytes]);
      const stripped = stripInterim(all);
      atStart = stripped.atStart;
      if (stripped.rest === undefined) {
        held = all;
        continue;
      }
      held = undefined;
      if (stripped.rest.length > 0) return stripped.rest;
      // only interim answers so far: look for more, or wait for the next 'readable'
    }
  };
  socket.write = ((...args: unknown[]) => {
    const chunk = args[0];
    if (typeof chunk === 'string' && REQUEST_LINE.test(chunk)) {
      atStart = true;
      held = undefined;
    }
    return write(...args);
  }) as Socket['write'];
  return socket;
}
