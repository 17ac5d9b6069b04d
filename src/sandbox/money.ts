/**
 * Money in the sandbox is an integer number of micro-USD (1 USD = 1,000,000 µUSD): inference
 * charges are fractions of a cent, and integers never drift. USD numbers exist only at the JSON
 * edge (these helpers), never in the database.
 */

/** µUSD in one USD. */
export const MICROS_PER_USD = 1_000_000;

/** A USD amount that has at most two decimals (already validated) → µUSD, exact. */
export function centsUsdToMicros(usd: number): number {
  return Math.round(usd * 100) * 10_000;
}

/** Any finite USD amount ≥ 0 → µUSD, rounded to the nearest micro-dollar. */
export function usdToMicros(usd: number): number {
  return Math.round(usd * MICROS_PER_USD);
}

/** µUSD → a USD number for JSON (the nearest double; may be negative). */
export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}

/**
 * µUSD → a plain decimal string without trailing zeros: 25_000_000 → "25",
 * 25_500_000 → "25.5", 10_050_000 → "10.05" (the USDC payment instruction `amount` string).
 */
export function microsToDecimalString(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_USD);
  const frac = String(abs % MICROS_PER_USD)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return frac ? `${sign}${whole}.${frac}` : `${sign}${whole}`;
}

/** A decimal USD string with up to 6 decimals ("25", "25.5", "0.000001"). */
const DECIMAL = /^(\d{1,12})(?:\.(\d{1,6}))?$/;

/**
 * Parses a decimal USD string (up to 6 decimals, as USDC has) into µUSD without going through
 * a float; null when the text is not such a number.
 */
export function decimalStringToMicros(text: string): number | null {
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const whole = Number(match[1]);
  const frac = Number((match[2] ?? '').padEnd(6, '0'));
  const micros = whole * MICROS_PER_USD + frac;
  return Number.isSafeInteger(micros) ? micros : null;
}

/**
 * Most an account may hold in top-ups in total, µUSD (1,000,000,000 USD): far below 2^53 µUSD,
 * so every sum the sandbox computes stays an exact integer (a top-up past it gets a 4xx, never
 * a 500).
 */
export const MAX_ACCOUNT_TOTAL_MICROS = 1_000_000_000 * MICROS_PER_USD;
