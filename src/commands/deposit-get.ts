import type { GetResponse } from '../api/models.js';
import { getChecked } from '../deposits/answers.js';
import { isTerminal, parseDepositId } from '../domain/values.js';
import { invalidValue } from '../errors.js';
import type { Session } from '../session.js';
import { checkQrPngTarget, qrPngFromText, qrStyle, renderTerminalQr, writeFileAtomic } from '../ui/qr.js';
import type { OptionsOf } from './define.js';
import type { GET_FLAGS } from './flags.js';

export type GetOptions = OptionsOf<typeof GET_FLAGS>;

export async function run(idText: string, opts: GetOptions, session: Session): Promise<void> {
  const p = session.printer;
  const id = parseDepositId(idText);
  if (!id.ok) throw invalidValue('deposit id', idText, id.expected);
  const style = qrStyle(opts.qrStyle, session.setting('qr-style'));
  if (opts.qrPng !== undefined) checkQrPngTarget(opts.qrPng);
  const target = session.target();
  const client = await session.client(target);
  // the answer passed every rule: qrCodeText is a valid BR Code for the deposit's amount
  const { value, raw } = await getChecked(client, id.value);
  const showsCode = opts.qr || opts.qrPng !== undefined;
  if (showsCode && isTerminal(value.status)) {
    // said even with --quiet: the code is shown or written all the same
    p.err(
      `warning: deposit ${value.id} is ${value.status}: do not pay its QR code or copy-paste string; a payment now would not be settled`,
    );
  }
  if (opts.qrPng !== undefined) {
    // drawn from the checked qrCodeText, never a picture the service sent
    writeFileAtomic(opts.qrPng, await qrPngFromText(value.qrCodeText));
    p.info(`QR code written to ${opts.qrPng}`);
  }
  if (session.globals.json) {
    p.json(raw);
    return;
  }
  if (session.globals.quiet) {
    p.out(value.status);
    return;
  }
  const { renderDeposit, timeZoneOf } = await import('../ui/render.js');
  const sandbox = target.mode === 'sandbox';
  p.out(
    renderDeposit(p.c, value, {
      sandbox,
      blinded: sandbox ? null : await blindedFragment(value, session),
      timeZone: timeZoneOf(session.ctx.env),
    }),
  );
  if (opts.qr) {
    const { safeText } = await import('../domain/safe-text.js');
    p.out('');
    p.out(await renderTerminalQr(value.qrCodeText, style));
    p.out('PIX copy-paste:');
    p.out(safeText(value.qrCodeText));
  }
}

/**
 * With a blinding key set, the explorer link shows the unblinded amounts (`#blinded=`): the
 * settlement is looked up and opened. Anything that goes wrong leaves the link as it is, with a
 * warning: `get` does not verify (that is `deposit verify`).
 */
async function blindedFragment(value: GetResponse, session: Session): Promise<string | null> {
  const txid = value.settlement?.liquidTxid;
  if (!txid || (session.profile()['blinding-keys'] ?? []).length === 0) return null;
  const { verifySetup } = await import('./shared/verify-setup.js');
  const { verifySettlements } = await import('../deposits/verify.js');
  try {
    const setup = await verifySetup(session);
    try {
      const [o] = await verifySettlements(setup.check, [value], setup.settings, setup.ledger);
      return o?.report?.blindedFragment ?? null;
    } finally {
      await setup.close();
    }
  } catch (error) {
    session.printer.warn(
      `warning: the settlement could not be unblinded for the explorer link: ${(error as Error).message}`,
    );
    return null;
  }
}
