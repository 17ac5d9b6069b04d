/**
 * What a rotation in the TUI works with (src/delivery/rotation.ts `RotationContext`): the
 * session's client, the record of unfinished rotations in the app's data dir, and delivery's lock
 * there; plus the profile and service origin a rotation is recorded under. Undefined while there
 * is no client or no data dir (then `R` is not offered).
 */
import { useMemo } from 'react';
import type { RotationContext } from '../../../delivery/rotation.js';
import { DeliveryRecord } from '../../../delivery/deliveryRecord.js';
import { RotationRecord } from '../../../delivery/rotationRecord.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useSession } from '../../contexts/SessionContext.js';

/** A {@link RotationContext} with where its rotations are recorded. */
export interface TuiRotation extends RotationContext {
  readonly profile: string;
  /** The service origin (`https://api.example.com`). */
  readonly origin: string;
}

/** See the module comment. */
export function useRotationContext(): TuiRotation | undefined {
  const { dataDir, profile } = useServices();
  const { client, baseUrl } = useSession();
  return useMemo(() => {
    if (!client || !dataDir || !baseUrl) return undefined;
    return {
      client,
      record: new RotationRecord(dataDir),
      delivery: { lockDir: dataDir },
      deliveries: new DeliveryRecord(dataDir),
      profile: profile.name,
      origin: new URL(baseUrl).origin,
    };
  }, [client, dataDir, baseUrl, profile.name]);
}
