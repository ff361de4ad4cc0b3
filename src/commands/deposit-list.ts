import { formatCents } from '../domain/money.js';
import { isTerminal, parseWholeNumber } from '../domain/values.js';
import { invalidValue, LbrlError } from '../errors.js';
import { Session } from '../session.js';
import { type HistoryEntry, type StatusRecord, statusRecord } from '../store/history.js';
import { colorStatus } from '../ui/render.js';

export interface ListOptions {
  refresh?: boolean;
  limit?: string;
}

function shorten(address: string, width = 24): string {
  return address.length <= width ? address : `${address.slice(0, 12)}…${address.slice(-(width - 13))}`;
}

export async function refreshEntries(entries: HistoryEntry[], session: Session): Promise<void> {
  const target = session.target();
  const key = Session.targetKey(target);
  const stale = entries.filter((e) => e.baseUrl === key && !isTerminal(e.status));
  const skipped = entries.filter((e) => e.baseUrl !== key && !isTerminal(e.status)).length;
  if (skipped > 0) session.printer.info(`${skipped} deposit(s) of another service were not refreshed`);
  if (stale.length === 0) return;
  const client = await session.client(target);
  const records: StatusRecord[] = [];
  for (const e of stale) {
    try {
      const { value } = await client.getDeposit(e.id);
      const record = statusRecord(e.id, value.status, session.ctx.now());
      records.push(record);
      e.status = record.status;
      e.statusAt = record.at;
    } catch (error) {
      if (error instanceof LbrlError && error.type === 'not_found') {
        session.printer.warn(`warning: the service does not know deposit ${e.id}`);
        continue;
      }
      session.record(records);
      throw error;
    }
  }
  session.record(records);
}

export async function run(opts: ListOptions, session: Session): Promise<void> {
  let limit = 30;
  if (opts.limit !== undefined) {
    const r = parseWholeNumber(opts.limit, 1, 10_000);
    if (!r.ok) throw invalidValue('--limit', opts.limit, r.expected);
    limit = r.value;
  }
  const entries = session.history().entries((r) => r.profile === session.profileName, { limit });
  if (opts.refresh) await refreshEntries(entries, session);
  const p = session.printer;
  if (session.globals.json) {
    p.json(entries.map(({ v: _v, type: _t, ...rest }) => rest));
    return;
  }
  if (entries.length === 0) {
    p.info(`no deposits recorded for profile ${session.profileName} in ${session.history().file}`);
    return;
  }
  if (!p.stdoutIsTTY) {
    // gh's convention for pipes: tab-separated, no header, full values
    for (const e of entries) p.out([e.id, e.at, e.amountInCents, e.destinationAddress, e.status].join('\t'));
    return;
  }
  const rows = entries.map((e) => [
    e.id,
    e.at.replace(/\.\d{3}Z$/, 'Z'),
    formatCents(e.amountInCents),
    shorten(e.destinationAddress),
    e.status,
  ]);
  const header = ['ID', 'CREATED', 'AMOUNT', 'DESTINATION', 'STATUS'];
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
