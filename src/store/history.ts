/**
 * The local record of deposits this machine created: an append-only NDJSON file under the
 * config directory. Each append is one write of one line on a file opened for appending,
 * so concurrent processes never interleave and a kill -9 loses at most the line being
 * written. A damaged line is skipped with a warning, never the whole file.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface CreatedRecord {
  v: 1;
  type: 'created';
  id: string;
  profile: string;
  baseUrl: string;
  at: string;
  amountInCents: number;
  destinationAddress: string;
  splitAddress: string | null;
  splitFee: string | null;
  status: string;
  /** set for rows of a batch: what --resume recognises */
  batchKey?: string;
}

export interface StatusRecord {
  v: 1;
  type: 'status';
  id: string;
  status: string;
  at: string;
}

export function statusRecord(id: string, status: string, now: number): StatusRecord {
  return { v: 1, type: 'status', id, status, at: new Date(now).toISOString() };
}

/** A batch row about to be sent: its Idempotency-Key is reused if the outcome never came back. */
export interface AttemptRecord {
  v: 1;
  type: 'attempt';
  profile: string;
  baseUrl: string;
  batchKey: string;
  idempotencyKey: string;
  at: string;
}

export type HistoryRecord = CreatedRecord | StatusRecord | AttemptRecord;

export interface HistoryEntry extends CreatedRecord {
  statusAt: string;
}

const MARK = '{"v":1,';

export class History {
  readonly file: string;

  constructor(
    readonly dir: string,
    private readonly warn: (line: string) => void = () => {},
  ) {
    this.file = path.join(dir, 'history.ndjson');
  }

  append(records: HistoryRecord[]): void {
    if (records.length === 0) return;
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    const fd = fs.openSync(this.file, 'a', 0o600);
    try {
      // no fsync: what must survive is a killed process, and the page cache outlives it
      fs.writeSync(fd, text);
    } finally {
      fs.closeSync(fd);
    }
  }

  read(): HistoryRecord[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const out: HistoryRecord[] = [];
    let damaged = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const whole = parseLine(line);
      if (whole) {
        out.push(whole);
        continue;
      }
      damaged += 1;
      // a torn write may have run into a whole record: keep that record
      const tail = line.lastIndexOf(MARK) > 0 ? parseLine(line.slice(line.lastIndexOf(MARK))) : undefined;
      if (tail) out.push(tail);
    }
    if (damaged > 0) this.warn(`warning: skipped ${damaged} damaged line(s) in ${this.file}`);
    return out;
  }

  /** The deposits created, each with its last known status, newest first. */
  entries(filter: (r: CreatedRecord) => boolean = () => true): HistoryEntry[] {
    const created = new Map<string, HistoryEntry>();
    const records = this.read();
    for (const r of records) {
      if (r.type === 'created' && filter(r)) created.set(r.id, { ...r, statusAt: r.at });
    }
    const order = [...created.keys()];
    // appends are ordered: a later line is later news, whatever the clocks of the writers said
    for (const r of records) {
      if (r.type !== 'status') continue;
      const e = created.get(r.id);
      if (e) {
        e.status = r.status;
        e.statusAt = r.at;
      }
    }
    // newest first: by creation time, and by file order where times tie
    const rank = new Map(order.map((id, i) => [id, i]));
    return [...created.values()].sort((a, b) =>
      a.at < b.at ? 1 : a.at > b.at ? -1 : rank.get(b.id)! - rank.get(a.id)!,
    );
  }
}

function parseLine(line: string): HistoryRecord | undefined {
  if (!line.startsWith(MARK)) return undefined;
  try {
    const r = JSON.parse(line) as HistoryRecord;
    if (r && typeof r === 'object' && (r.type === 'created' || r.type === 'status' || r.type === 'attempt'))
      return r;
  } catch {
    // damaged
  }
  return undefined;
}
