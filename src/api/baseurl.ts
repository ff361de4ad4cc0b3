/** Base URL rules: https, or plain http for loopback only; a path prefix is kept. */
import type { Parsed } from '../domain/money.js';

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function parseBaseUrl(input: string): Parsed<string> {
  const expected =
    'an https:// URL (plain http:// only for 127.0.0.1, ::1 or localhost), with no credentials, query or fragment';
  if (input.length > 2048 || !/^[\x21-\x7e]+$/.test(input)) return { ok: false, expected };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, expected };
  }
  if (url.username || url.password || url.search || url.hash || input.includes('#') || input.includes('?')) {
    return { ok: false, expected };
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return { ok: false, expected };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, expected };
  const path = url.pathname.replace(/\/+$/, '');
  // lbrl appends /v1/api/deposit itself: a base URL that already has it leads nowhere
  const api = /\/v1\/api(\/deposits?(\/.*)?)?$/i.exec(path);
  if (api) {
    const fixed = `${url.origin}${path.slice(0, api.index)}`;
    return {
      ok: false,
      expected: `the base URL without ${api[0]}: ${fixed} (lbrl adds /v1/api/deposit itself)`,
    };
  }
  return { ok: true, value: `${url.origin}${path}` };
}

export function parseToken(input: string): Parsed<string> {
  if (input.length === 0 || input.length > 4096 || !/^[\x21-\x7e]+$/.test(input)) {
    return {
      ok: false,
      expected: 'a token of printable characters with no spaces or line breaks (at most 4096)',
    };
  }
  return { ok: true, value: input };
}

/**
 * A URL (or a text holding URLs) with any user name and password replaced by `[redacted]`: what
 * lbrl prints of a URL it refuses, so a password written into one is never shown.
 */
export function withoutCredentials(text: string): string {
  // each scheme's authority, up to its last @ (a password may hold one, and a URL parser ends the
  // user information there), read in one pass: a megabyte of text costs a megabyte of steps. For
  // the special schemes a URL parser reads an authority after any slashes or backslashes, or none
  // (`http:\\u:p@host`, `https:/u:p@host` and `http:u:p@host` all carry user u, password p)
  const scheme = /(?<![a-z0-9+.-])(?:(?:https?|wss?|ftp):[\\/]*|[a-z][a-z0-9+.-]*:\/\/)/gi;
  let out = '';
  let copied = 0;
  for (let found = scheme.exec(text); found; found = scheme.exec(text)) {
    const start = found.index + found[0].length;
    let end = start;
    while (end < text.length && !'/?#\\ \t\r\n\f\v'.includes(text[end]!)) end++;
    const at = start + text.slice(start, end).lastIndexOf('@');
    if (at >= start) {
      out += `${text.slice(copied, start)}[redacted]`;
      copied = at;
    }
    scheme.lastIndex = Math.max(end, scheme.lastIndex);
  }
  return out + text.slice(copied);
}

/**
 * A URL as lbrl prints it: its user information, every query value and its fragment replaced by
 * `[redacted]` (a receiver's `?token=…` is a credential as much as a password is); the scheme,
 * host, port, path and the query's names stay, so a person can still tell which URL it is.
 */
export function redactUrl(url: string): string {
  const text = withoutCredentials(url);
  const hash = text.indexOf('#');
  const beforeHash = hash >= 0 ? `${text.slice(0, hash)}#[redacted]` : text;
  const query = beforeHash.indexOf('?');
  if (query < 0) return beforeHash;
  const end = hash >= 0 ? beforeHash.indexOf('#', query) : beforeHash.length;
  const pairs = beforeHash
    .slice(query + 1, end)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0 ? (pair === '' ? pair : '[redacted]') : `${pair.slice(0, equals)}=[redacted]`;
    });
  return `${beforeHash.slice(0, query + 1)}${pairs.join('&')}${beforeHash.slice(end)}`;
}

/** The parts of a URL that may carry a secret (user, password, query values, fragment), decoded and as written. */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const parts = [parsed.username, parsed.password, parsed.hash.slice(1)];
  for (const [name, value] of parsed.searchParams) parts.push(value, name.length >= 16 ? name : '');
  const raw = parsed.search
    .slice(1)
    .split('&')
    .map((pair) => pair.slice(pair.indexOf('=') + 1));
  const all = [...parts, ...raw, ...parts.map((p) => encodeURIComponent(p))];
  return [...new Set(all.filter((p) => p.length >= 4))];
}
