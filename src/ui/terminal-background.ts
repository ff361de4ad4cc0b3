/**
 * Is the terminal's background light or dark? Asked with the standard query (OSC 11,
 * `ESC ] 11 ; ? BEL`, answered `ESC ] 11 ; rgb:RRRR/GGGG/BBBB` ended by BEL or ST), followed by
 * a Primary Device Attributes query (`ESC [ c`) that every terminal answers: its answer coming
 * first means the terminal does not know OSC 11, so nobody waits for the time-out there. stdin is
 * put in raw mode for the answer (so it is not echoed) and given back as it was, whatever happens.
 */

export interface TtyInput {
  isTTY?: boolean | undefined;
  isRaw?: boolean | undefined;
  setRawMode?(mode: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export interface TtyOutput {
  write(chunk: string): unknown;
  isTTY?: boolean | undefined;
}

/** The default wait for an answer; a terminal on this machine answers in a few milliseconds. */
export const BACKGROUND_QUERY_MS = 150;

const OSC11 = /\u001b\]11;rgb:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})(?:\u0007|\u001b\\)/i;
const DA1 = /\u001b\[\?[\d;]*c/;

/** `rgb:RRRR/GGGG/BBBB` (1 to 4 hex digits each) to light or dark, by its luma. */
export function backgroundFromAnswer(text: string): 'dark' | 'light' | undefined {
  const match = OSC11.exec(text);
  if (!match) return undefined;
  const [red, green, blue] = [match[1]!, match[2]!, match[3]!].map(
    (h) => Number.parseInt(h, 16) / (16 ** h.length - 1),
  );
  const luma = 0.299 * red! + 0.587 * green! + 0.114 * blue!;
  return luma > 0.5 ? 'light' : 'dark';
}

/** The background's style, or undefined when the terminal did not say within `timeoutMs`. */
export function queryBackground(
  input: TtyInput,
  output: TtyOutput,
  timeoutMs = BACKGROUND_QUERY_MS,
): Promise<'dark' | 'light' | undefined> {
  if (!input.isTTY || !output.isTTY || typeof input.setRawMode !== 'function') {
    return Promise.resolve(undefined);
  }
  const wasRaw = Boolean(input.isRaw);
  return new Promise((resolve) => {
    let answer = '';
    let finished = false;
    const finish = (style: 'dark' | 'light' | undefined) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      input.off('data', onData);
      try {
        input.setRawMode?.(wasRaw);
      } finally {
        input.pause();
        resolve(style);
      }
    };
    const onData = (chunk: Buffer | string) => {
      answer += typeof chunk === 'string' ? chunk : chunk.toString('latin1');
      const style = backgroundFromAnswer(answer);
      if (style) finish(style);
      else if (DA1.test(answer) || answer.includes('\u0003')) finish(undefined);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    try {
      input.setRawMode?.(true);
      input.on('data', onData);
      input.resume();
      output.write('\u001b]11;?\u0007\u001b[c');
    } catch {
      finish(undefined);
    }
  });
}
