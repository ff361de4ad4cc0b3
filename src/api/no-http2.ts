/**
 * Bundled in place of `node:http2`, for undici only (see the build in package.json).
 *
 * lbrl speaks HTTP/1.1: its Agent never offers h2 in TLS negotiation (undici's allowH2 is off),
 * so undici's HTTP/2 client is never used. undici still loads `node:http2` when its module is
 * first required, which costs every command that makes a request about 10 ms of start-up, and it
 * is written for runtimes without http2: a failed load leaves its HTTP/2 client unused.
 */
throw new Error('node:http2 is not bundled with lbrl: it speaks HTTP/1.1 only');
