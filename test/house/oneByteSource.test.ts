/**
 * Every module of src/, as the build writes it, is Latin-1. Node reads a module's source as a
 * string that V8 keeps for the module's life, one byte per character while every character is
 * Latin-1 and two bytes per character as soon as one is not. esbuild writes the characters of
 * strings and templates beyond ASCII as escapes, but leaves those of a regular expression literal
 * as they are: one `…` in a pattern held a whole chunk of the TUI's (~80 KB) at twice its size in
 * every process. Such a pattern spells them as escapes (`\u2026`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- the build script is plain JavaScript without declarations
import { bundleOptions } from '../../scripts/build.mjs';
import { ROOT, sourceFiles } from './source.js';

/** The build's options that decide how a module's text is written (scripts/build.mjs). */
const { format, target, jsx, minifySyntax, minifyWhitespace, legalComments } = bundleOptions('') as Record<string, unknown>;

describe('the source as built', () => {
  it('is Latin-1 in every module of src/: no module source held at two bytes a character', () => {
    const beyond = sourceFiles().flatMap((file) => {
      const { code } = transformSync(readFileSync(path.join(ROOT, file), 'utf8'), {
        loader: file.endsWith('.tsx') ? 'tsx' : 'ts',
        format,
        target,
        jsx,
        minifySyntax,
        minifyWhitespace,
        legalComments,
      } as Parameters<typeof transformSync>[1]);
      const chars = [...new Set(code.match(/[^\x00-\xff]/g) ?? [])];
      return chars.length > 0 ? [`${file}: ${chars.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ')}`] : [];
    });
    expect(beyond).toEqual([]);
  });
});
