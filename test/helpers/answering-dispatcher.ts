/**
 * A dispatcher without a socket for the real HTTP clients (DepositClient, EsploraClient take one):
 * each request answered by the test's function with a status, headers and a body, as a server
 * would write them, and recorded. The client's own code reads the answer (its status, its
 * content type, its text, classify() on a failure), so what a command makes of an answer is
 * tested without a server. Nothing reaches the network: a request the function does not answer
 * fails the test. What needs bytes on a socket (TLS, refused connections, time-outs, interim
 * answers, a body cut short) stays with the socket-level tests.
 */
import { MockAgent } from 'undici';
import type { Dispatcher } from '../../src/api/http.js';

export interface WrittenReply {
  status: number;
  /** header names in lower case, as Node gives them */
  headers?: Record<string, string>;
  /** text is sent as UTF-8; bytes as they are (an answer in another charset) */
  body?: string | Uint8Array;
}

export interface SeenCall {
  method: string;
  /** the URL asked for: origin and path */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface AnsweringDispatcher {
  dispatcher: Dispatcher;
  /** every request, in order */
  calls: SeenCall[];
}

/** Answers every request with `reply(call)`; a JSON body gets its content type unless one is given. */
export function answeringDispatcher(reply: (call: SeenCall) => WrittenReply): AnsweringDispatcher {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const calls: SeenCall[] = [];
  agent
    .get(() => true)
    .intercept({ path: () => true, method: () => true })
    .reply((options) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries((options.headers ?? {}) as Record<string, string>))
        headers[k.toLowerCase()] = String(v);
      const call: SeenCall = {
        method: options.method,
        url: `${options.origin}${options.path}`,
        headers,
        ...(typeof options.body === 'string' ? { body: options.body } : {}),
      };
      calls.push(call);
      const answer = reply(call);
      return {
        statusCode: answer.status,
        data: answer.body ?? '',
        responseOptions: { headers: answer.headers ?? {} },
      };
    })
    .persist();
  return { dispatcher: agent as unknown as Dispatcher, calls };
}

/** A JSON answer: the status, the body as JSON text, application/json. */
export function jsonReply(status: number, body: unknown): WrittenReply {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
