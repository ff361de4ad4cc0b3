/**
 * Where the ledger lives, guessed at the program's entry (cli/ledger-early.ts) as the factory
 * will read it: LBRL_LEDGER_URL, else the `ledger` setting of the profile --profile or
 * LBRL_PROFILE names (else "default"); when it is a database, the connection to its server is
 * begun (store/pg-early.ts). A guess only: nothing is printed and nothing thrown here (the
 * command says what is wrong, where it reads it), and the ledger uses the socket only if the
 * address it finally connects to is this one.
 */
import { ConfigStore, configDir } from '../store/config.js';
import { beginEarlySocket } from '../store/pg-early.js';
import { namedHostAndPort, serverAddress } from '../store/pg-socket.js';
import { profileNameOf, resolveLedger } from './target.js';

export function beginLedgerConnection(
  flags: { profile?: string | undefined },
  env: Record<string, string | undefined>,
  home?: string,
): void {
  try {
    const { name } = profileNameOf(flags, env);
    const store = new ConfigStore(configDir(env, home));
    const setting = resolveLedger(env, () => {
      const saved = store.rawProfile(name).ledger as unknown;
      return typeof saved === 'string' ? saved : undefined;
    });
    if (setting.kind !== 'postgres') return;
    const { host, port } = namedHostAndPort(setting.url, env);
    beginEarlySocket(serverAddress(host, port));
  } catch {
    // a profile, config or URL the command will refuse: no head start, and nothing said here
  }
}
