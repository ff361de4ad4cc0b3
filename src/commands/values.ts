/** The fixed lists a value can take, for the definitions and for completion. */
import { NETWORKS } from '../domain/networks.js';

export const QR_STYLES = ['dark', 'light'] as const;
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** What `config set <key> <TAB>` offers for each key; a key not here takes free text. */
export const CONFIG_VALUES: Readonly<Record<string, readonly string[]>> = {
  network: NETWORKS,
  'qr-style': QR_STYLES,
  'sandbox-autopay': ['off'],
};
