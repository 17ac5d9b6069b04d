/**
 * A key name another key already has (src/billing/keyNames.ts): says which key has it
 * and why two keys with one name are trouble, before anything is sent. Cancel (focused first)
 * goes back to the name; the action creates or renames anyway.
 */
import type { ConsumptionKey } from '../../api/schemas.js';
import { DUPLICATE_NAME_TROUBLE, takenByWords } from '../../billing/keyNames.js';
import { visible } from '../../terminal/sanitize.js';
import { ConfirmDialog } from './ConfirmDialog.js';

/** Props of {@link NameTakenDialog}. */
export interface NameTakenDialogProps {
  /** The name asked for. */
  readonly name: string;
  /** The key that has it. */
  readonly taken: ConsumptionKey;
  readonly action: 'create' | 'rename';
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function NameTakenDialog(props: NameTakenDialogProps) {
  const name = visible(props.name);
  return (
    <ConfirmDialog
      title={`A key is already named "${name}"`}
      message={[`It is ${visible(takenByWords(props.taken))}.`, `With two keys named "${name}", ${DUPLICATE_NAME_TROUBLE} (keydeck keys rotate ${name}). Cancel goes back to the name.`]}
      actionLabel={props.action === 'create' ? 'Create another' : 'Rename anyway'}
      onConfirm={props.onConfirm}
      onCancel={props.onCancel}
      columns={props.columns}
      rows={props.rows}
    />
  );
}
