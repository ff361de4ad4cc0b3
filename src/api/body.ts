/**
 * Reading an answer's body within a limit, as the service's and the explorer's clients do. What
 * the headers already say is judged before a byte of body is read: a Content-Length above the
 * limit is refused at once, and so is a content coding lbrl did not ask for (it asks for
 * `identity`, ACCEPT_ENCODING, so a compressed body is a broken contract, never inflated: a small
 * gzip can stand for gigabytes). A body without a length (chunked, or read to the connection's
 * end) is read up to the limit and no further. Whenever a body is not read to its end, the
 * request is aborted, which closes its connection at once: nothing more of it is read or waited for.
 */

type HeaderValue = string | string[] | undefined;

/** What a client sends as Accept-Encoding: no content coding but the body as it is. */
export const ACCEPT_ENCODING = 'identity';

export type BodyOutcome =
  | { kind: 'read'; bytes: Buffer }
  /** larger than the limit: said by its Content-Length (declared), or met while reading */
  | { kind: 'too-large'; declared: number | undefined }
  /** in a content coding that was not asked for (gzip, br, deflate, ...), as the header names it */
  | { kind: 'encoded'; encoding: string };

interface AnswerBody extends AsyncIterable<unknown> {
  destroy(): unknown;
  on(event: 'error', listener: () => void): unknown;
}

/** The body of an answer, at most `limit` bytes; see the module's comment. */
export async function readAnswerBody(
  answer: { headers: Record<string, HeaderValue>; body: AnswerBody },
  limit: number,
): Promise<BodyOutcome> {
  const encoding = unaskedEncoding(answer.headers['content-encoding']);
  if (encoding !== undefined) {
    abandon(answer.body);
    return { kind: 'encoded', encoding };
  }
  const declared = declaredLength(answer.headers['content-length']);
  if (declared !== undefined && declared > limit) {
    abandon(answer.body);
    return { kind: 'too-large', declared };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      abandon(answer.body);
      return { kind: 'too-large', declared };
    }
    chunks.push(chunk as Buffer);
  }
  return { kind: 'read', bytes: Buffer.concat(chunks) };
}

/**
 * The content codings of a Content-Encoding header other than `identity`, or undefined when
 * there are none (no header, or `identity` alone).
 */
export function unaskedEncoding(header: HeaderValue): string | undefined {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  const codings = values
    .flatMap((value) => value.split(','))
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding.toLowerCase() !== 'identity');
  return codings.length > 0 ? codings.join(', ') : undefined;
}

/** A Content-Length's value, when it is one number (HTTP's parser has already refused the rest). */
function declaredLength(header: HeaderValue): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

/** Stop reading: the request is aborted and its connection closed (undici's body does both). */
function abandon(body: AnswerBody): void {
  // the abort is reported as the stream's error: expected here, and nobody else listens
  body.on('error', () => {});
  body.destroy();
}
