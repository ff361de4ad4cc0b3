/**
 * How the sandbox answers over HTTP, as the Deposit service words it: a JSON error body with its
 * code and message (`errorBody`), every answer written with its length and no caching (`respond`),
 * the raw answer for a connection the parser refused (`rawAnswer`), and what a request sent shown
 * back only as safe, bounded text (`shown`).
 */
import type http from 'node:http';

/** the longest value echoed in a message or the log */
const ECHO_LIMIT = 120;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function respond(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function errorBody(code: string, message: string, field?: string) {
  const error: Record<string, string> = { code, message };
  if (field) error.field = field;
  return { error };
}

/**
 * A value from the request as it may be shown in a message or a log line: printable ASCII,
 * anything else percent-escaped, cut at ECHO_LIMIT characters.
 */
export function shown(value: string): string {
  const cut = value.length > ECHO_LIMIT ? value.slice(0, ECHO_LIMIT) : value;
  let out = '';
  for (const piece of cut) {
    const code = piece.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f) out += piece;
    else
      for (const b of Buffer.from(piece, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return value.length > ECHO_LIMIT ? `${out}...` : out;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

/** A whole answer written straight to a socket the HTTP parser has given up on. */
export function rawAnswer(status: number, code: string, message: string): string {
  const body = JSON.stringify(errorBody(code, message));
  return [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}
