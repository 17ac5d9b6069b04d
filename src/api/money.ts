/**
 * Money as the service sends it, read exactly: a USD amount arrives as a JSON number
 * or as a decimal string (the older documentation pages: `"remaining": "74.50"`), and a
 * real-time balance may carry sub-cent digits. Every amount is parsed from its decimal digits
 * into an integer count of micro-USD (µUSD, 10⁻⁶ USD) — never through `parseFloat` — and shown
 * to the cent by cutting, never by rounding, so a balance is never shown higher than it is.
 *
 * Carried through keydeck as a USD `number` equal to `micros / 1e6` (the double nearest the
 * exact decimal, so the rest of the app keeps the seed's field types); {@link usdToMicros}
 * recovers the integer exactly for any amount up to ±9·10⁹ USD.
 */

/** µUSD per USD. */
export const MICROS_PER_USD = 1_000_000;

/** Longest decimal text accepted for an amount, in characters (a bound on hostile input). */
const MAX_DECIMAL_LENGTH = 40;
/** A plain decimal: optional minus, digits, optional fraction. No exponent, no spaces. */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Parses a USD amount into integer µUSD, exactly from its decimal digits.
 * Accepts a finite JSON number or a decimal string (`"74.50"`, `"25"`, `"-0.004"`; no exponent,
 * no sign `+`, no spaces). Digits past the sixth decimal are cut toward −∞ (a balance of
 * `0.0000019` reads as 1 µUSD: never more than was sent).
 * @returns the µUSD integer, or undefined when the value is not such an amount or is beyond
 *   ±9·10⁹ USD (past `Number.MAX_SAFE_INTEGER` µUSD)
 */
export function parseUsdMicros(value: unknown): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    // Fast path (a usage answer carries tens of thousands of amounts): below a million USD, a
    // number whose µUSD count is whole but for the double's own error (at most ~2e-5 there) is
    // that count, as its digits say; anything with a real seventh decimal goes the long way.
    if (Math.abs(value) < 1e6) {
      const scaled = value * MICROS_PER_USD;
      const micros = Math.floor(scaled + 1e-4);
      if (Math.abs(scaled - micros) <= 1e-4) return Object.is(micros, -0) ? 0 : micros;
    }
    // The shortest text that reads back as this double: the digits the JSON carried (up to 15
    // significant digits). Exponent forms only occur below 1e-6 or at 1e21 and above.
    text = String(value);
    if (/e/i.test(text)) {
      if (Math.abs(value) >= 1) return undefined;
      text = value.toFixed(7);
    }
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return undefined;
  }
  if (text.length > MAX_DECIMAL_LENGTH) return undefined;
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const negative = m[1] === '-';
  const whole = m[2]!;
  const fraction = m[3] ?? '';
  const kept = (fraction + '000000').slice(0, 6);
  const cut = /[1-9]/.test(fraction.slice(6));
  const magnitude = BigInt(whole) * 1_000_000n + BigInt(kept);
  // Cutting toward −∞: a positive amount loses its extra digits, a negative one goes one µUSD lower.
  const micros = negative ? -magnitude - (cut ? 1n : 0n) : magnitude;
  if (micros > BigInt(Number.MAX_SAFE_INTEGER) || micros < -BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  const n = Number(micros);
  return Object.is(n, -0) ? 0 : n;
}

/** µUSD → USD number (the double nearest the exact decimal). */
export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}

/** USD number → integer µUSD: exact for any amount {@link microsToUsd} produced (up to ±9·10⁹ USD). */
export function usdToMicros(usd: number): number {
  return Math.round(usd * MICROS_PER_USD);
}

/**
 * A USD amount to the cent, cut toward −∞ (never rounded up): `74.509` → `"74.50"`,
 * `-0.001` → `"-0.01"`, `1234.5` → `"1234.50"`. No currency sign, no separators.
 */
export function centsText(usd: number): string {
  if (!Number.isFinite(usd)) return String(usd);
  const cents = Math.floor(usdToMicros(usd) / 10_000);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * The digits of a whole number with a comma every three (`1234567` → `"1,234,567"`, `-1200` →
 * `"-1,200"`): what `toLocaleString('en-US')` gives, without loading ICU's locale data (about 7 MB
 * of resident memory in a process that stays open). Non-integers keep their fraction as
 * `String()` writes it. `value` may also be a string of digits (a bigint's, beyond 2^53).
 */
export function groupThousands(value: number | string): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  const [whole, fraction] = String(value).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/**
 * keydeck's one money formatter: a USD amount as a person reads it, `$1,234.50`, `-$0.01`; to the
 * cent, cut toward −∞ like {@link centsText} (a balance is never shown higher than it is: `0.999`
 * → `$0.99`). The same text as `Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })`
 * of the cut amount, without loading ICU's locale data. Every face writes money with it, but for
 * its named variants: {@link formatUsdCode} (the commands' lines a script reads) and
 * {@link centsText} (an amount to type back: `--amount 25.00`).
 */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd)) return String(usd);
  const text = centsText(usd);
  const negative = text.startsWith('-');
  const [whole, cents] = (negative ? text.slice(1) : text).split('.');
  return `${negative ? '-' : ''}$${groupThousands(Number(whole))}.${cents}`;
}

/**
 * {@link formatUsd}'s variant for the commands' lines (docs/commands.md: `billing credits`,
 * `billing watch`, `billing history`, a verify's answer): `1234.5` → `"1234.50 USD"`, the
 * figure as {@link centsText} writes it (no sign, no separators: what a script reads), then the
 * currency's code.
 */
export function formatUsdCode(usd: number): string {
  return `${centsText(usd)} USD`;
}

/**
 * The canonical decimal text of a µUSD amount: at least the digits given, trailing zeros of the
 * fraction dropped (`25000000` → `"25"`, `25500000` → `"25.5"`). Used where the seed has a string
 * (the USDC payment instruction `amount`).
 */
export function microsToDecimal(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_USD);
  const frac = String(abs % MICROS_PER_USD)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return frac === '' ? `${sign}${whole}` : `${sign}${whole}.${frac}`;
}
