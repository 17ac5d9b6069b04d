/**
 * The dotenv edit of `--to-file` (src/delivery/dotenv.ts): one variable set, every other byte of
 * the user's file kept (CRLF, no final newline, comments, quoted values over several lines), a
 * variable set twice replaced in both places, and the result read back by the `dotenv` parser.
 */
import { parse } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { DotenvEditError, setDotenvVariable } from '../../src/delivery/dotenv.js';

const KEY = 'sk_NEWnewNEWnew0123456789';

describe('setDotenvVariable', () => {
  it('replaces only the line of the variable; the other lines stay byte for byte (LF)', () => {
    const text = '# app settings\nDB_URL=postgres://x\n\nKEYDECK_API_KEY=sk_old # prod key\nexport OTHER = "a b"\n';
    const edit = setDotenvVariable(text, 'KEYDECK_API_KEY', KEY);
    expect(edit.text).toBe(`# app settings\nDB_URL=postgres://x\n\nKEYDECK_API_KEY=${KEY} # prod key\nexport OTHER = "a b"\n`);
    expect(edit.replacedLines).toEqual([4]);
    expect(edit.appended).toBe(false);
  });

  it('keeps CRLF line ends and a missing final newline, also when appending', () => {
    const replaced = setDotenvVariable('A=1\r\nKEY=old\r\nB=2', 'KEY', KEY);
    expect(replaced.text).toBe(`A=1\r\nKEY=${KEY}\r\nB=2`);
    const appended = setDotenvVariable('A=1\r\nB=2', 'KEY', KEY);
    expect(appended.text).toBe(`A=1\r\nB=2\r\nKEY=${KEY}`);
    expect(appended.appended).toBe(true);
    expect(setDotenvVariable('A=1\n', 'KEY', KEY).text).toBe(`A=1\nKEY=${KEY}\n`);
    expect(setDotenvVariable('', 'KEY', KEY).text).toBe(`KEY=${KEY}\n`);
  });

  it('replaces every assignment of a variable set twice, so any reader gets the new key', () => {
    const text = 'KEY=first\nA=1\nexport KEY="second"\n';
    const edit = setDotenvVariable(text, 'KEY', KEY);
    expect(edit.text).toBe(`KEY=${KEY}\nA=1\nexport KEY=${KEY}\n`);
    expect(edit.replacedLines).toEqual([1, 3]);
    expect(parse(edit.text).KEY).toBe(KEY);
  });

  it('replaces a quoted value over several lines whole, and never touches a look-alike inside another value', () => {
    const text = 'CERT="-----BEGIN\nKEY=inside-the-cert\n-----END"\nKEY="multi\nline" # c\nZ=1';
    const edit = setDotenvVariable(text, 'KEY', KEY);
    expect(edit.text).toBe(`CERT="-----BEGIN\nKEY=inside-the-cert\n-----END"\nKEY=${KEY} # c\nZ=1`);
    const before = parse(text);
    const after = parse(edit.text);
    expect(after.KEY).toBe(KEY);
    expect(after.CERT).toBe(before.CERT);
    expect(after.Z).toBe('1');
  });

  it('keeps the separator style (NAME = value, NAME: value) and a comment right after the value', () => {
    expect(setDotenvVariable('KEY = old\n', 'KEY', KEY).text).toBe(`KEY = ${KEY}\n`);
    expect(setDotenvVariable('KEY: old\n', 'KEY', KEY).text).toBe(`KEY: ${KEY}\n`);
    expect(setDotenvVariable('KEY=old#c\n', 'KEY', KEY).text).toBe(`KEY=${KEY} #c\n`);
  });

  it('refuses a bad variable name and never quotes the value into something else', () => {
    expect(() => setDotenvVariable('', '1KEY', KEY)).toThrow(DotenvEditError);
    expect(() => setDotenvVariable('', 'MY-KEY', KEY)).toThrow(/not a variable name/);
    expect(() => setDotenvVariable('', 'KEY', 'sk_a b')).toThrow(DotenvEditError);
  });
});
