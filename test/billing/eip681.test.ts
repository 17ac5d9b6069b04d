/**
 * EIP-55 checksums, USDC base units in integer arithmetic, and the EIP-681 URI; the terminal QR
 * code decodes (jsqr, from a PNG drawn from the half-block text) to exactly that URI.
 */
import { describe, expect, it } from 'vitest';
import { decodeQrText } from './qrDecode.js';
import { BASE_CHAIN_ID, fromBaseUnits, PaymentRequestError, toBaseUnits, toChecksumAddress, USDC_BASE_CONTRACT, usdcTransferUri } from '../../src/billing/eip681.js';
import { qrLines } from '../../src/tui/flows/topup/qr.js';

describe('EIP-55', () => {
  it('checksums the EIP-55 reference addresses', () => {
    for (const a of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(toChecksumAddress(a.toLowerCase())).toBe(a);
      expect(toChecksumAddress(a.toUpperCase().replace('0X', '0x'))).toBe(a);
    }
    expect(toChecksumAddress(USDC_BASE_CONTRACT.toLowerCase())).toBe(USDC_BASE_CONTRACT);
  });

  it('refuses a mixed-case address with a wrong checksum, and non-addresses', () => {
    expect(() => toChecksumAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toThrow(PaymentRequestError);
    expect(() => toChecksumAddress('0x1234')).toThrow(/40 hex/);
  });
});

describe('USDC amounts', () => {
  it('converts with integers only', () => {
    expect(toBaseUnits(10.01)).toBe(10_010_000n);
    expect(toBaseUnits(0.3)).toBe(300_000n);
    expect(toBaseUnits('25')).toBe(25_000_000n);
    expect(toBaseUnits('19.99')).toBe(19_990_000n);
    expect(toBaseUnits(1_000_000)).toBe(1_000_000_000_000n);
    expect(fromBaseUnits(10_010_000n)).toBe('10.01');
    expect(() => toBaseUnits('1.0000001')).toThrow(/decimals/);
    expect(() => toBaseUnits(-1)).toThrow(PaymentRequestError);
    expect(() => toBaseUnits(1e21)).toThrow(PaymentRequestError);
  });
});

describe('EIP-681 URI', () => {
  it('is a USDC transfer on Base mainnet to the checksummed address, in 6-decimal units', () => {
    const uri = usdcTransferUri({ address: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359', amount: 10.01 });
    expect(uri).toBe(`ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@${BASE_CHAIN_ID}/transfer?address=0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359&uint256=10010000`);
  });
});

describe('terminal QR code', () => {
  const uri = usdcTransferUri({ address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', amount: '25' });

  it('decodes to the exact EIP-681 URI (dark modules drawn, the coloured rendering)', () => {
    const lines = qrLines(uri);
    expect(new Set(lines.map((l) => [...l].length)).size).toBe(1);
    expect(decodeQrText(lines, false)).toBe(uri);
  });

  it('decodes in the NO_COLOR rendering too (light modules drawn)', () => {
    expect(decodeQrText(qrLines(uri, { lightDrawn: true }), true)).toBe(uri);
  });

  it('fits a terminal: at most 45 columns and 23 rows for a Base USDC request', () => {
    const lines = qrLines(usdcTransferUri({ address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', amount: '1000000' }));
    expect([...lines[0]!].length).toBeLessThanOrEqual(45);
    expect(lines.length).toBeLessThanOrEqual(23);
  });
});
