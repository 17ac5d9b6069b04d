/**
 * What the TUI's key operations work with (src/operations/): the session's client, the app's data
 * dir (the records of unfinished key creations and rotations, the delivery record, the locks of
 * the operations this session drives, delivery's lock), and the profile and service origin they
 * are recorded under. keydeck always has a data dir (src/config/paths.ts), so the TUI's `n` and
 * `R` run the same machines as the commands, recorded the same way. Undefined while there is no
 * client (no session yet). Each flow drives with its own `emit` (its dialog's lines).
 *
 * Each component that calls it has a set of drivers of its own (src/operations/drivers.ts): what
 * it drives is in progress for every other keydeck, and let go of when it unmounts (or its context
 * changes): at once, or once its drives under way have settled (each is handed over to the app's
 * exit, which waits for it), so a flow closed mid-drive never drops a lock from under its drive.
 */
import { useEffect, useMemo } from 'react';
import { DeliveryRecord } from '../../delivery/deliveryRecord.js';
import { keyOperationContext, OperationDrivers, rotationContext, type KeyOperationContext, type RotationContext } from '../../operations/index.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useSession } from '../contexts/SessionContext.js';

/** The contexts of this session's key operations. */
export interface TuiOperations {
  readonly dataDir: string;
  readonly profile: string;
  /** The service origin (`https://api.example.com`). */
  readonly origin: string;
  /** The component's own set (see the module comment). */
  readonly drivers: OperationDrivers;
  /** Key creations and pledges' keys (src/operations/createKey.ts). */
  readonly creations: KeyOperationContext;
  /** Rotations (src/operations/rotateKey.ts). */
  readonly rotations: RotationContext;
}

/** See the module comment. */
export function useKeyOperations(): TuiOperations | undefined {
  const { dataDir, profile, failpoints, waitUntil } = useServices();
  const { client, baseUrl } = useSession();
  const ops = useMemo(() => {
    if (!client || !baseUrl) return undefined;
    const origin = new URL(baseUrl).origin;
    const shared = {
      client,
      delivery: { lockDir: dataDir },
      deliveries: new DeliveryRecord(dataDir),
      drivers: new OperationDrivers(dataDir, { waitUntil }),
      profile: profile.name,
      origin,
      failpoints,
    };
    return { dataDir, profile: profile.name, origin, drivers: shared.drivers, creations: keyOperationContext({ ...shared, dataDir }), rotations: rotationContext({ ...shared, dataDir }) };
  }, [client, dataDir, baseUrl, profile.name, failpoints, waitUntil]);
  useEffect(() => () => ops?.drivers.releaseAll(), [ops]);
  return ops;
}
