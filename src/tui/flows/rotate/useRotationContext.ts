/**
 * What the TUI's multi-step key operations work with (src/operations/): the session's client, the
 * records of unfinished rotations and key creations in the app's data dir, and delivery's lock
 * there; plus the profile and
 * service origin they are recorded under. Undefined while there is no client or no data dir (then
 * `R` is not offered, and a new key is only shown).
 */
import { useMemo } from 'react';
import { DeliveryRecord } from '../../../delivery/deliveryRecord.js';
import { RotationRecord } from '../../../delivery/rotationRecord.js';
import type { KeyOperationContext } from '../../../operations/createKey.js';
import { OperationDrivers } from '../../../operations/drivers.js';
import { OperationRecord } from '../../../operations/record.js';
import type { RotationContext } from '../../../operations/rotateKey.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useSession } from '../../contexts/SessionContext.js';

/** A {@link RotationContext} with where its rotations are recorded. */
export interface TuiRotation extends RotationContext {
  readonly drivers: OperationDrivers;
  readonly profile: string;
  /** The service origin (`https://api.example.com`). */
  readonly origin: string;
  /** The same session's key creations (src/operations/createKey.ts). */
  readonly creations: KeyOperationContext;
}

/** See the module comment. */
export function useRotationContext(): TuiRotation | undefined {
  const { dataDir, profile } = useServices();
  const { client, baseUrl } = useSession();
  return useMemo(() => {
    if (!client || !dataDir || !baseUrl) return undefined;
    const origin = new URL(baseUrl).origin;
    const delivery = { lockDir: dataDir };
    const deliveries = new DeliveryRecord(dataDir);
    // One set for the session: what the TUI drives is in progress for every other keydeck.
    const drivers = new OperationDrivers(dataDir);
    return {
      client,
      record: new RotationRecord(dataDir),
      delivery,
      deliveries,
      drivers,
      profile: profile.name,
      origin,
      creations: { client, record: new OperationRecord(dataDir), delivery, deliveries, drivers, profile: profile.name, origin },
    };
  }, [client, dataDir, baseUrl, profile.name]);
}
