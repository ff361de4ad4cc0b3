import { listEntries, refreshEntries } from '../deposits/history.js';
import { formatCents } from '../domain/money.js';
import { safeText } from '../domain/safe-text.js';
import { parseWholeNumber } from '../domain/values.js';
import { invalidValue } from '../errors.js';
import { Session } from '../session.js';
import { colorStatus } from '../ui/render.js';
import type { OptionsOf } from './define.js';
import type { LIST_FLAGS } from './flags.js';

export type ListOptions = OptionsOf<typeof LIST_FLAGS>;

function shorten(address: string, width = 24): string {
  return address.length <= width ? address : `${address.slice(0, 12)}…${address.slice(-(width - 13))}`;
}

export async function run(opts: ListOptions, session: Session): Promise<void> {
  let limit = 30;
  if (opts.limit !== undefined) {
    const r = parseWholeNumber(opts.limit, 1, 10_000);
    if (!r.ok) throw invalidValue('--limit', opts.limit, r.expected);
    limit = r.value;
  }
  const entries = listEntries(session.history(), session.profileName, limit);
  if (opts.refresh) {
    const target = session.target();
    await refreshEntries(entries, {
      api: () => session.client(target),
      target: Session.targetKey(target),
      recorder: session,
      now: session.ctx.now,
      notes: session.printer,
    });
  }
  const p = session.printer;
  if (session.globals.json) {
    // what the checks keep (the create answer's fields, a final answer's settlement) is not shown
    p.json(entries.map(({ v: _v, type: _t, answer: _a, final: _f, ...rest }) => rest));
    return;
  }
  if (entries.length === 0) {
    p.info(`no deposits recorded for profile ${session.profileName} in ${session.history().file}`);
    return;
  }
  if (!p.stdoutIsTTY) {
    // gh's convention for pipes: tab-separated, no header, full values
    for (const e of entries)
      p.out(
        [e.id, e.at, e.amountInCents, e.destinationAddress, e.status]
          .map((x) => safeText(String(x)))
          .join('\t'),
      );
    return;
  }
  // the history is a file anyone may have edited: its values are shown escaped too;
  // a column of its own once a settlement was verified on chain (deposit verify, watch --verify)
  // (or what a later check found instead: pending, not-found, mismatch...)
  const anyVerified = entries.some((e) => e.verifiedAt || e.onChain);
  const rows = entries.map((e) => [
    safeText(e.id),
    safeText(e.at.replace(/\.\d{3}Z$/, 'Z')),
    formatCents(e.amountInCents),
    shorten(safeText(e.destinationAddress)),
    safeText(e.status),
    ...(anyVerified ? [e.verifiedAt ? 'verified' : safeText(e.onChain ?? '')] : []),
  ]);
  const header = ['ID', 'CREATED', 'AMOUNT', 'DESTINATION', 'STATUS', ...(anyVerified ? ['ON CHAIN'] : [])];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: string[], color = false) =>
    cells
      .map((c, i) =>
        i === 4 && color ? colorStatus(p.c, c) : i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd();
  p.out(p.c.bold(line(header)));
  for (const r of rows) p.out(line(r.map(String), true));
}
