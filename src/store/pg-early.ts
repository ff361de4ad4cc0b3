/**
 * The connection to a ledger in PostgreSQL begun at the program's entry (cli/ledger-early.ts),
 * before the config's checks, the program and the command load: the server forks and starts
 * the process that will serve it meanwhile. Only the TCP (or Unix socket) connection is made
 * here; nothing is sent on it, so no user, database or password is chosen by the early guess.
 *
 * The ledger takes it (store/ledger-postgres.ts) only when the address it finally connects to is
 * the same host and port, and the socket has neither failed nor been ended by the server; any
 * other socket begun here is closed and the ledger opens its own, whose failure is said as
 * always. A command that never reaches the ledger leaves it unreferenced: it never keeps the
 * process running, and the exit closes it. A server logs nothing for a connection closed before
 * a byte was sent.
 */
import { EarlySocket, type ServerAddress } from './pg-socket.js';

/**
 * A socket begun longer ago than this is not used: the server closes a connection that has sent
 * nothing after its authentication_timeout (60 s by default, 1 s at the least), and a command
 * that took this long to reach the ledger (a prompt answered) gains nothing from it anyway.
 */
export const EARLY_SOCKET_FRESH_MS = 5_000;

interface Begun {
  address: ServerAddress;
  socket: EarlySocket;
  at: number;
}

let begun: Begun | undefined;

/** Begins connecting to `address` (a socket begun before is closed). */
export function beginEarlySocket(address: ServerAddress, now: number = performance.now()): void {
  dropEarlySocket();
  const socket = new EarlySocket(address);
  socket.unref();
  const held: Begun = { address, socket, at: now };
  begun = held;
  // a command that runs on (a display, a listen) without reaching the ledger holds it no longer
  setTimeout(() => {
    if (begun === held) dropEarlySocket();
  }, EARLY_SOCKET_FRESH_MS).unref();
}

/**
 * The socket begun at entry, if it connects to `address` and may still be used; else undefined,
 * and the one begun (if any) is closed. Taken once.
 */
export function takeEarlySocket(
  address: ServerAddress,
  now: number = performance.now(),
): EarlySocket | undefined {
  const held = begun;
  begun = undefined;
  if (!held) return undefined;
  const same = held.address.host === address.host && held.address.port === address.port;
  if (same && held.socket.usable() && now - held.at < EARLY_SOCKET_FRESH_MS) return held.socket;
  held.socket.discard();
  return undefined;
}

/** Closes the socket begun at entry, if any is still waiting. */
export function dropEarlySocket(): void {
  begun?.socket.discard();
  begun = undefined;
}

/** Whether a socket begun at entry is waiting to be taken (for tests). */
export function earlySocketWaiting(): boolean {
  return begun !== undefined;
}
