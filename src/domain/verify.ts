/** Money safety: the checks of a create answer against the request that asked for it. */
import { sameAddress } from './address.js';
import { brCodeAmountCents, parseBrCode } from './brcode.js';
import { decimalEquals, decimalFromNumber, decimalToString } from './decimal.js';
import { centsToDecimalText } from './money.js';

export interface RequestFacts {
  amountInCents: number;
  lbrlAddress: string;
  lbrlSplitAddress?: string | undefined;
  splitFee?: string | undefined;
}

export interface AnswerFacts {
  status: string;
  amountInCents: number;
  destinationAddress: string;
  splitAddress?: string | null | undefined;
  splitPercent?: number | null | undefined;
  qrCodeText: string;
}

export interface Mismatch {
  field: string;
  sent: string;
  received: string;
}

function fractionOfFee(fee: string): string {
  // "2.99%" -> "0.0299", exactly
  const m = /^(\d+)\.(\d{2})%$/.exec(fee);
  if (!m) return fee;
  const basisPoints = Number(m[1]) * 100 + Number(m[2]);
  return decimalToString({ units: BigInt(basisPoints), scale: 4 });
}

export function checkCreateAnswer(request: RequestFacts, answer: AnswerFacts): Mismatch[] {
  const out: Mismatch[] = [];
  if (answer.amountInCents !== request.amountInCents) {
    out.push({
      field: 'amountInCents',
      sent: String(request.amountInCents),
      received: String(answer.amountInCents),
    });
  }
  if (!sameAddress(request.lbrlAddress, answer.destinationAddress)) {
    out.push({ field: 'destinationAddress', sent: request.lbrlAddress, received: answer.destinationAddress });
  }
  const wantSplit = request.lbrlSplitAddress ?? null;
  const gotSplit = answer.splitAddress ?? null;
  if (wantSplit === null ? gotSplit !== null : gotSplit === null || !sameAddress(wantSplit, gotSplit)) {
    out.push({ field: 'splitAddress', sent: String(wantSplit), received: String(gotSplit) });
  }
  const gotPercent = answer.splitPercent ?? null;
  if (request.splitFee === undefined) {
    if (gotPercent !== null) out.push({ field: 'splitPercent', sent: 'null', received: String(gotPercent) });
  } else {
    const want = fractionOfFee(request.splitFee);
    const got = gotPercent === null ? null : decimalFromNumber(gotPercent);
    const wantDecimal = decimalFromNumber(Number(want));
    if (!got || !wantDecimal || !decimalEquals(got, wantDecimal)) {
      out.push({
        field: 'splitPercent',
        sent: `${want} (${request.splitFee})`,
        received: String(gotPercent),
      });
    }
  }
  if (answer.status !== 'WAITING_PAYMENT') {
    out.push({ field: 'status', sent: 'WAITING_PAYMENT (a new deposit)', received: answer.status });
  }
  const code = parseBrCode(answer.qrCodeText);
  if (!code.ok) {
    out.push({ field: 'qrCodeText', sent: 'a valid PIX BR Code', received: `one where ${code.reason}` });
  } else if (code.value.amount) {
    const cents = brCodeAmountCents(code.value);
    if (cents !== BigInt(request.amountInCents)) {
      out.push({
        field: 'qrCodeText amount (54)',
        sent: centsToDecimalText(request.amountInCents),
        received: code.value.amountText ?? '',
      });
    }
  }
  return out;
}
