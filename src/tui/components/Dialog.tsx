/**
 * The frame of every dialog: a rounded box with a bold title, centred in the area it is given.
 */
import type { ReactNode } from 'react';
import { Box, Text } from 'ink';
import { visible } from '../../terminal/sanitize.js';
import { theme } from '../theme.js';

/** Props of {@link Dialog}. */
export interface DialogProps {
  readonly title: string;
  /** Width of the area the dialog is centred in, in cells. */
  readonly columns: number;
  /** Height of that area, in cells. */
  readonly rows: number;
  /** Draws the frame in the danger colour (the title says why too). */
  readonly dangerous?: boolean;
  readonly children?: ReactNode;
}

/** Widest a dialog gets, in cells. */
export const DIALOG_MAX_WIDTH = 76;

/** The width of a dialog in an area `columns` wide. */
export function dialogWidth(columns: number): number {
  return Math.min(columns, DIALOG_MAX_WIDTH);
}

/** A centred, bordered dialog. */
export function Dialog({ title, columns, rows, dangerous, children }: DialogProps) {
  return (
    <Box width={columns} height={rows} alignItems="center" justifyContent="center">
      <Box width={dialogWidth(columns)} flexDirection="column" borderStyle="round" borderColor={dangerous ? theme.danger : theme.accent} paddingX={1}>
        <Text bold wrap="truncate">
          {visible(title)}
        </Text>
        {children}
      </Box>
    </Box>
  );
}
