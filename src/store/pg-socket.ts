/**
 * The connection to the ledger's server, begun before the client is loaded: the server starts a
 * process for each connection it accepts (a fork, then its own start), and it does that while
 * this process loads pg (store/pg-client.ts), instead of after. The socket is then given to pg
 * through its own `stream` option; pg speaks the protocol on it as on a socket it made (the
 * startup message, TLS when sslmode asks for it, authentication).
 *
 * The address is pg's: a host starting with `/` is the directory of the server's Unix socket
 * (`<dir>/.s.PGSQL.<port>`), else a host name and port; with neither given, pg's defaults
 * (localhost, 5432), which the client is given explicitly so that both mean the same place.
 */
import type net from 'node:net';
import { type LedgerUrl, MULTI_HOST_REFUSAL } from '../domain/ledger-url.js';
import { invalidValue } from '../errors.js';

/**
 * node:net, loaded when a socket is first made, not with this module: the program's entry holds
 * this module (store/pg-early.ts), and a command on the file ledger loads no network module.
 */
function netModule(): typeof net {
  return require('node:net') as typeof net;
}

/** pg's defaults (pg/lib/defaults.js), when neither the URL nor the environment says. */
const DEFAULT_HOST = 'localhost';
const DEFAULT_PORT = 5432;

export interface ServerAddress {
  host: string;
  port: number;
}

/**
 * The host and port a ledger URL names, libpq's way: the URL's, else PGHOST and PGPORT (a PGPORT
 * that is not a number is left out); undefined where neither says (then pg's defaults). A list
 * of several in PGHOST or PGPORT (libpq's multi-host form, which pg cannot follow) is refused,
 * not read as a host named `h1,h2` or the default port.
 */
export function namedHostAndPort(
  url: LedgerUrl,
  env: Record<string, string | undefined>,
): { host: string | undefined; port: number | undefined } {
  for (const name of ['PGHOST', 'PGPORT'] as const) {
    const value = env[name];
    const used = name === 'PGHOST' ? url.host === undefined : url.port === undefined;
    if (used && value?.includes(','))
      throw invalidValue(name, value, `one ${name === 'PGHOST' ? 'host' : 'port'} (${MULTI_HOST_REFUSAL})`);
  }
  const host = url.host ?? (env.PGHOST || undefined);
  const portText = env.PGPORT;
  const port = url.port ?? (portText && /^\d{1,5}$/.test(portText) ? Number(portText) : undefined);
  return { host, port };
}

export function serverAddress(host: string | undefined, port: number | undefined): ServerAddress {
  return { host: host ?? DEFAULT_HOST, port: port ?? DEFAULT_PORT };
}

/**
 * A socket connecting to the server from the moment it is made. What happens before pg takes it
 * (connected, refused) is kept, and said to pg again when it calls connect(): pg listens for
 * 'connect', 'error' and 'close' right after that call, as on a socket of its own.
 */
export class EarlySocket {
  private readonly socket = new (netModule().Socket)();
  private error: Error | undefined;
  private connected = false;
  private closed = false;
  private taken = false;

  constructor(address: ServerAddress) {
    const { socket } = this;
    // an error before pg listens is kept (never thrown from the event), and said to pg
    socket.on('error', (error) => {
      if (!this.taken) this.error ??= error;
    });
    socket.once('connect', () => {
      this.connected = true;
    });
    socket.once('close', () => {
      this.closed = true;
    });
    socket.setNoDelay(true);
    if (address.host.startsWith('/')) socket.connect(`${address.host}/.s.PGSQL.${address.port}`);
    else socket.connect(address.port, address.host);
  }

  /**
   * Resolves once the system was asked to connect: net does that on its next tick (for an
   * address; after the look-up for a name), and pg's module, loaded next, is required in one
   * synchronous step that would otherwise run first, leaving the server nothing to start meanwhile.
   */
  begun(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** pg's `stream` option: this socket once (a second connection would get a socket of its own). */
  readonly stream = (): net.Socket => {
    if (this.taken) return new (netModule().Socket)();
    this.taken = true;
    const { socket } = this;
    // a socket begun at the program's entry waited unreferenced: pg's connection keeps the run alive
    socket.ref();
    socket.connect = (() => {
      process.nextTick(() => this.replay());
      return socket;
    }) as typeof socket.connect;
    return socket;
  };

  /**
   * Begun at the program's entry, for a command that may turn out to need no ledger: while it
   * waits, it does not keep the process running.
   */
  unref(): void {
    this.socket.unref();
  }

  /** Whether pg may still be given it: neither failed nor ended by the server, and not taken. */
  usable(): boolean {
    return !this.taken && !this.error && !this.closed;
  }

  /** Not taken by pg (it could not be loaded, or the command needs no ledger): closed. */
  discard(): void {
    if (!this.taken) this.socket.destroy();
  }

  /** What happened before pg listened: an error (then the close), or the connection made. */
  private replay(): void {
    if (this.error) {
      this.socket.emit('error', this.error);
      if (this.closed) this.socket.emit('close', true);
    } else if (this.connected) this.socket.emit('connect');
    // still connecting: the socket's own 'connect' or 'error' comes to pg's listeners
  }
}
