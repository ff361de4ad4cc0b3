import { getChecked } from '../deposits/answers.js';
import { isTerminal, parseDepositId } from '../domain/values.js';
import { invalidValue } from '../errors.js';
import type { Session } from '../session.js';
import { checkQrPngTarget, qrPngFromText, qrStyle, renderTerminalQr, writeFileAtomic } from '../ui/qr.js';

export interface GetOptions {
  qr?: boolean;
  qrPng?: string;
  qrStyle?: string;
}

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
  const { renderDeposit } = await import('../ui/render.js');
  p.out(renderDeposit(p.c, value, { sandbox: target.mode === 'sandbox' }));
  if (opts.qr) {
    const { safeText } = await import('../domain/safe-text.js');
    p.out('');
    p.out(await renderTerminalQr(value.qrCodeText, style));
    p.out('PIX copy-paste:');
    p.out(safeText(value.qrCodeText));
  }
}
