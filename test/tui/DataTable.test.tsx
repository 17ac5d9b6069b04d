import { afterEach, describe, expect, it } from 'vitest';
import { DataTable } from '../../src/tui/components/DataTable.js';
import { displayWidth } from '../../src/tui/format.js';
import { renderTui, type TuiHandle } from './render.js';

let ui: TuiHandle | undefined;
afterEach(() => ui?.unmount());

const columns = [
  { key: 'name', title: 'name', width: 12 },
  { key: 'status', title: 'status', width: 10 },
];

describe('DataTable (ink-table extended)', () => {
  it('draws only the rows given, one separator under the heading, and aligns wide characters', async () => {
    ui = renderTui(
      <DataTable
        columns={columns}
        rows={[
          { name: '▶ 日本語キー', status: '● active' },
          { name: '  plain', status: '○ inactive' },
          { name: '  a name that is far too long', status: '● active' },
        ]}
        selectedIndex={0}
      />,
      { columns: 40, rows: 10 },
    );
    const frame = await ui.waitFor('plain');
    const lines = frame.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(3 + 3 + 1);
    // Every line of the frame has the same display width: wide characters are padded by cells.
    const widths = new Set(lines.map((l) => displayWidth(l)));
    expect(widths.size).toBe(1);
    expect(frame).toContain('│   a name th… │');
    expect(lines.filter((l) => l.includes('┼'))).toHaveLength(1);
  });

  it('draws only the window of rows it is given, out of 10,000', async () => {
    const all = Array.from({ length: 10_000 }, (_, i) => ({ name: `  key ${i}`, status: '● active' }));
    ui = renderTui(<DataTable columns={columns} rows={all.slice(5000, 5010)} selectedIndex={3} />, { columns: 40, rows: 20 });
    const frame = await ui.waitFor('key 5009');
    expect(frame).not.toContain('key 5010');
    expect(frame).not.toContain('key 4999');
  });
});
