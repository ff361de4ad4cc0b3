/** What the commands that show the local history (deposit list, deposit report) read of the Session. */
import type { Context } from '../../context.js';
import type { Session } from '../../session.js';
import type { History } from '../../store/history.js';
import type { Printer } from '../../ui/output.js';

/** The history, and where and how it is shown; `Recorded` is the part of the history the command reads. */
export interface HistoryOutputOptions<Recorded> {
  printer: Printer;
  json: boolean;
  profileName: string;
  /** the clock, the time zone (TZ) and the stdout (its width: the table's; the CSV is written to it as it is) */
  ctx: Pick<Context, 'now' | 'env' | 'stdout'>;
  /** the deposits this machine recorded (read once the profile is read and checked) */
  history(): Recorded;
}

/** The Session's world, narrowed to the history and the output. */
export function historyOutputOf(session: Session): HistoryOutputOptions<History> {
  return {
    printer: session.printer,
    json: session.globals.json === true,
    profileName: session.profileName,
    ctx: session.ctx,
    history: () => session.history(),
  };
}
