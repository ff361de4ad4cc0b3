/**
 * Exact decimal arithmetic for money. A JSON number is turned into its shortest
 * decimal text (what JSON.parse read) and from there into an integer with a scale,
 * so no value is ever compared or summed as a binary float.
 */
export interface Decimal {
  /** the value times 10^scale */
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL_TEXT = /^(-)?(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

export function decimalFromText(text: string): Decimal | null {
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return null;
  const [, sign, intPart, fracPart = '', expPart] = match;
  const exp = expPart ? Number(expPart) : 0;
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 400) return null;
  let digits = BigInt(`${intPart}${fracPart}`);
  let scale = fracPart.length - exp;
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return normalise({ units: sign ? -digits : digits, scale });
}

export function decimalFromNumber(value: number): Decimal | null {
  if (!Number.isFinite(value)) return null;
  return decimalFromText(String(value));
}

function normalise(decimal: Decimal): Decimal {
  let { units, scale } = decimal;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

export function decimalEquals(a: Decimal, b: Decimal): boolean {
  const [x, y] = align(a, b);
  return x === y;
}

export function decimalSub(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return normalise({ units: x - y, scale });
}

export function decimalToString(decimal: Decimal): string {
  const negative = decimal.units < 0n;
  const digits = (negative ? -decimal.units : decimal.units).toString().padStart(decimal.scale + 1, '0');
  const intPart = digits.slice(0, digits.length - decimal.scale);
  const frac = decimal.scale > 0 ? `.${digits.slice(digits.length - decimal.scale)}` : '';
  return `${negative ? '-' : ''}${intPart}${frac}`;
}

/** Integer cents when the value has at most two decimals, else null. */
export function decimalToCents(decimal: Decimal): bigint | null {
  if (decimal.scale > 2) return null;
  return decimal.units * 10n ** BigInt(2 - decimal.scale);
}
