/** The profile's expire-after and request ceiling, and the alarm of a charge paid after lbrl gave up on it. */
import { readExpireAfter, readRequestsPerMinute } from '../../domain/expiry.js';
import { LbrlError } from '../../errors.js';
import type { Session } from '../../session.js';
import { localTime, timeZoneOf } from '../../ui/render.js';

/** The profile's `expire-after` in ms, checked again as it is read. */
export function expireAfterMs(session: Session): number {
  const value = session.setting('expire-after');
  const r = readExpireAfter(value);
  if (!r.ok)
    throw new LbrlError(
      `the profile's expire-after ${JSON.stringify(value)} is not ${r.expected}; fix it with lbrl config set expire-after 24h`,
      'config',
    );
  return r.value;
}

/** The profile's `requests-per-minute`, checked again as it is read. */
export function requestsPerMinute(session: Session): number {
  const value = session.setting('requests-per-minute');
  const r = readRequestsPerMinute(value);
  if (!r.ok)
    throw new LbrlError(
      `the profile's requests-per-minute ${JSON.stringify(value)} is not ${r.expected}; fix it with lbrl config set requests-per-minute 60`,
      'config',
    );
  return r.value;
}

/**
 * Said whatever -q or --json: a deposit lbrl recorded as expired was paid after all. With --json
 * it is one JSON line on stderr, `{"warning":{"type":"paid_after_expiry",...}}`, beside the
 * stream on stdout.
 */
export function reportPaidAfterExpiry(session: Session, id: string, status: string, expiredAt: string): void {
  const p = session.printer;
  if (session.globals.json) {
    p.err(JSON.stringify({ warning: { type: 'paid_after_expiry', depositId: id, status, expiredAt } }));
    return;
  }
  const when = localTime(expiredAt, timeZoneOf(session.ctx.env));
  p.alarm(
    `WARNING: deposit ${id} was recorded EXPIRED at ${when}, but the service now says ${status}: it was paid after lbrl stopped waiting. It is followed again (lbrl deposit watch --pending); deliver the goods or refund the customer.`,
  );
}
