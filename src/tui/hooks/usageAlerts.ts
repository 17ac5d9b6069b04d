/**
 * A key's runaway alert (src/billing/usageTracker.ts `KeyAlert`, started once per episode across
 * processes) as the notification the TUI and `keydeck monitor` send (src/terminal/notify.ts).
 */
import type { KeyAlert } from '../../billing/usageTracker.js';
import type { NotifyEvent } from '../../terminal/notify.js';

/** The notification of `alert`, the key named `name`. */
export function alertEvent(alert: KeyAlert, name: string): NotifyEvent {
  return {
    kind: 'key_runaway',
    anomaly: alert.judgement.kind,
    keyId: alert.keyId,
    keyName: name,
    usdPerHour: alert.judgement.usdPerHour,
    ...(alert.judgement.baselineUsdPerHour !== undefined && { baselineUsdPerHour: alert.judgement.baselineUsdPerHour }),
  };
}
