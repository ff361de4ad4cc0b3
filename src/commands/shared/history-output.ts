/** What the commands that show the local history (deposit list, deposit report) read of the factory. */
import type { Context } from '../../context.js';
import { targetKey } from '../../deposits/ports.js';
import type { Factory } from '../../factory/factory.js';
import type { History } from '../../store/history.js';
import type { Printer } from '../../ui/output.js';

/** The history, and where and how it is shown; `Recorded` is the part of the history the command reads. */
export interface HistoryOutputOptions<Recorded> {
  printer: Printer;
  json: boolean;
  profileName: string;
  /** the clock, the time zone (TZ) and the stdout (its width: the table's; the CSV is written to it as it is) */
  ctx: Pick<Context, 'now' | 'env' | 'stdout'>;
  /**
   * The deposits recorded (read once the profile is read and checked): the file history, or a
   * database ledger's (reached first, and this host's copy of it brought up to date).
   */
  history(): Recorded | Promise<Recorded>;
  /**
   * The service whose deposits are shown (its base URL, or "sandbox"): a view counts no other
   * unless asked (--all-services), so sandbox money never mixes with live money. Left out: every
   * service's.
   */
  service?(): string;
}

/** --all-services, shared by the views over the history. */
export const ALL_SERVICES = {
  flags: '--all-services',
  help: "every service's deposits, not only those of the service this profile uses now (sandbox and live are apart)",
} as const;

/** The service a view counts: the options' own, unless --all-services (undefined: every one). */
export function serviceShown(
  options: { service?(): string },
  allServices: boolean | undefined,
): string | undefined {
  return allServices ? undefined : options.service?.();
}

/**
 * What a person is told a view covers, on stderr; `allServices` false for a command without
 * --all-services (watch --pending), which is not offered.
 */
export function coverage(profile: string, service: string | undefined, allServices = true): string {
  if (service === undefined) return `profile ${profile}, every service`;
  const where = `profile ${profile} on ${service === 'sandbox' ? 'the sandbox' : service}`;
  return allServices ? `${where} (--all-services for every service)` : where;
}

/** The factory's getters, narrowed to the history and the output. */
export function historyOutputOf(factory: Factory): HistoryOutputOptions<History> {
  return {
    printer: factory.printer,
    json: factory.globals.json === true,
    profileName: factory.profileName,
    ctx: factory.ctx,
    history: () => factory.ledger().reachedHistory(),
    service: () => targetKey(factory.target()),
  };
}
