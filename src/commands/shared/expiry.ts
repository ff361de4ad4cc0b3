/** The profile's expire-after and request ceiling, and the alarm of a charge paid after lbrl gave up on it. */
import type { Context } from '../../context.js';
import { readExpireAfter, readRequestsPerMinute } from '../../domain/expiry.js';
import { LbrlError } from '../../errors.js';
import { type ConfigKey, DEFAULTS, type DefaultedKey } from '../../store/config.js';
import type { Printer } from '../../ui/output.js';
import { localTime, timeZoneOf } from '../../ui/zone-time.js';

/** The profile's settings, each read when asked (`settingOf` of the factory's profile; a test hands a plain object). */
export interface SettingsReader {
  /** the profile's value of a setting, or its default */
  setting(key: ConfigKey): string | undefined;
}

/** A setting every profile has: the reader's value, or the default when it has none. */
export function settingOrDefault(config: SettingsReader, key: DefaultedKey): string {
  return config.setting(key) ?? DEFAULTS[key];
}

/** The profile's `expire-after` in ms, checked again as it is read. */
export function expireAfterMs(config: SettingsReader): number {
  const value = settingOrDefault(config, 'expire-after');
  const parsed = readExpireAfter(value);
  if (!parsed.ok)
    throw new LbrlError(
      `the profile's expire-after ${JSON.stringify(value)} is not ${parsed.expected}; fix it with lbrl config set expire-after 24h`,
      'config',
    );
  return parsed.value;
}

/** The profile's `requests-per-minute`, checked again as it is read. */
export function requestsPerMinute(config: SettingsReader): number {
  const value = settingOrDefault(config, 'requests-per-minute');
  const parsed = readRequestsPerMinute(value);
  if (!parsed.ok)
    throw new LbrlError(
      `the profile's requests-per-minute ${JSON.stringify(value)} is not ${parsed.expected}; fix it with lbrl config set requests-per-minute 60`,
      'config',
    );
  return parsed.value;
}

/** Where the alarm goes: the printer, whether --json is on, and the time zone (TZ) of its time. */
export interface AlarmOutput {
  printer: Pick<Printer, 'err' | 'alarm'>;
  globals: { json?: boolean | undefined };
  ctx: Pick<Context, 'env'>;
}

/**
 * Said whatever -q or --json: a deposit lbrl recorded as expired was paid after all. With --json
 * it is one JSON line on stderr, `{"warning":{"type":"paid_after_expiry",...}}`, beside the
 * stream on stdout.
 */
export function reportPaidAfterExpiry(out: AlarmOutput, id: string, status: string, expiredAt: string): void {
  const printer = out.printer;
  if (out.globals.json) {
    printer.err(JSON.stringify({ warning: { type: 'paid_after_expiry', depositId: id, status, expiredAt } }));
    return;
  }
  const when = localTime(expiredAt, timeZoneOf(out.ctx.env));
  printer.alarm(
    `WARNING: deposit ${id} was recorded EXPIRED at ${when}, but the service now says ${status}: it was paid after lbrl stopped waiting. It is followed again (lbrl deposit watch --pending); deliver the goods or refund the customer.`,
  );
}
