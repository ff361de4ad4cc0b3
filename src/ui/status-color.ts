import type { ChalkInstance } from 'chalk';
import { safeText } from '../domain/text/safe-text.js';

/** A deposit's status, coloured by what it means (a text from outside made safe first). */
export function colorStatus(colors: ChalkInstance, statusText: string): string {
  const status = safeText(statusText);
  switch (status) {
    case 'FINALIZED':
      return colors.green(status);
    case 'FAILED':
      return colors.red(status);
    // bold and magenta read on a light background as on a dark one (yellow and cyan do not)
    case 'WAITING_PAYMENT':
      return colors.bold(status);
    default:
      return colors.magenta(status);
  }
}
