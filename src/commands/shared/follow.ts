/** The follow flow with its view on the terminal: create --watch and deposit watch. */
import { finishedLine, follow, type WatchPlan } from '../../deposits/watch.js';
import type { Session } from '../../session.js';
import { WatchView } from '../../ui/watch-view.js';

export async function followOnScreen(ids: string[], plan: WatchPlan, session: Session): Promise<void> {
  const api = await session.client(undefined, { maxRetries: 0 });
  const view = await WatchView.open(session);
  try {
    await follow(api, ids, plan, { clock: session.ctx, recorder: session }, view);
  } finally {
    view.stop();
  }
  session.printer.info(finishedLine(ids));
}
