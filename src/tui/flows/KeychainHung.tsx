/**
 * Shown instead of the guided setup when the OS keychain did not answer at start: whether a key
 * is stored for this profile is unknown, so setup (which would create a second management key)
 * is not offered. Says which keychain and for how long, and what works: `r` asks again, or quit
 * and run with `KEYDECK_TOKEN`, or with `--insecure-storage` (a key kept in the plaintext file).
 */
import { Box, Text } from 'ink';
import { HintBar } from '../components/HintBar.js';
import { useKeymap, useQuit } from '../contexts/KeymapContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useSession, useSessionActions } from '../contexts/SessionContext.js';
import { symbols, theme } from '../theme.js';

/** See the module comment. `columns` × `rows`: the screen. */
export function KeychainHung({ columns, rows }: { readonly columns: number; readonly rows: number }) {
  const services = useServices();
  const session = useSession();
  const { retryKeychain } = useSessionActions();
  const quit = useQuit();
  useKeymap('keychainHung', { 'keychain.retry': retryKeychain, 'keychain.quit': quit }, { modal: true });
  return (
    <Box flexDirection="column" width={columns} height={rows}>
      <Text bold color={theme.warning}>{`${symbols.warning} The keychain did not answer`}</Text>
      <Box flexDirection="column" flexGrow={1} marginTop={1}>
        <Text wrap="wrap">{`keydeck cannot tell whether a key is stored for profile "${services.profile.name}": ${session.keychainReason ?? 'the keychain did not answer'}.`}</Text>
        <Text wrap="wrap">{'Setup is not offered: it would create a second management key while the first may still be stored.'}</Text>
        <Box flexDirection="column" marginTop={1}>
          <Text wrap="wrap">{'• r  ask the keychain again (after unlocking or restarting your keyring)'}</Text>
          <Text wrap="wrap">{'• q  quit, then run with KEYDECK_TOKEN=<your mk_ key> (used, never stored)'}</Text>
          <Text wrap="wrap">{'• q  quit, then run with --insecure-storage to use a key kept in the plaintext file (mode 0600)'}</Text>
        </Box>
      </Box>
      <HintBar columns={columns} />
    </Box>
  );
}
