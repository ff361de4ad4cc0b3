import { getChecked } from '../deposits/answers.js';
import { parseBrCode } from '../domain/brcode.js';
import { parseDepositId } from '../domain/values.js';
import { invalidValue, LbrlError } from '../errors.js';
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
  const client = await session.client();
  const { value, raw } = await getChecked(client, id.value);
  const code = parseBrCode(value.qrCodeText);
  if (!code.ok && (opts.qr || opts.qrPng !== undefined)) {
    throw new LbrlError(
      `deposit ${value.id} has a qrCodeText that is not a valid PIX BR Code: ${code.reason}`,
      'contract',
    );
  }
  if (opts.qrPng !== undefined) {
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
  p.out(renderDeposit(p.c, value, timeZoneOf(session.ctx.env)));
  if (!code.ok) p.warn(`warning: its qrCodeText is not a valid PIX BR Code (${code.reason}); do not pay it`);
  if (opts.qr) {
    p.out('');
    p.out(await renderTerminalQr(value.qrCodeText, style));
    p.out('PIX copy-paste:');
    p.out(value.qrCodeText);
  }
}
