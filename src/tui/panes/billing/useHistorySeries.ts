/**
 * The history database's series for this profile at `baseUrl`'s origin (issue 16), opened once
 * through `services.openHistory` once the Billing pane has mounted (after the first frame). When the database cannot be used
 * the status line says why, once, and the history is kept in memory only.
 */
import { useEffect, useState } from 'react';
import type { HistorySeries } from '../../../billing/historyStore.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useFlash } from '../../contexts/StatusContext.js';

/** The series (undefined: memory only) and, when it could not be opened, why. */
export function useHistorySeries(baseUrl: string | undefined): { readonly series?: HistorySeries; readonly problem?: string } {
  const { openHistory } = useServices();
  const flash = useFlash();
  // Opened after the first frame (an effect, not during render): the database is not needed to
  // draw the screen, and keydeck's first frame waits for nothing it does not need (issue 15).
  const [opened, setOpened] = useState<{ readonly series?: HistorySeries; readonly problem?: string }>({});
  useEffect(() => {
    if (!openHistory || baseUrl === undefined) return;
    try {
      setOpened({ series: openHistory(baseUrl) });
    } catch (error) {
      setOpened({ problem: error instanceof Error ? error.message : String(error) });
    }
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (opened.problem) flash(`balance history not kept: ${opened.problem}`, 'warning');
  }, [opened.problem, flash]);
  return opened;
}
