/** The environments lbrl runs in under test, each with a config directory of its own. */

import { TOKEN } from './fixtures.js';
import { tempDir } from './temp.js';

/** Nothing configured: lbrl uses its embedded sandbox. HOME is fresh too (for the built binary). */
export function sandboxEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), ...extra };
}

/** A live service at `baseUrl` (a test server or a standing sandbox) with its token. */
export function liveEnv(
  baseUrl: string,
  token = TOKEN,
  extra: Record<string, string> = {},
): Record<string, string> {
  return { LBRL_CONFIG_DIR: tempDir(), LBRL_BASE_URL: baseUrl, LBRL_TOKEN: token, ...extra };
}
