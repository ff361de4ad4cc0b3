import { usageError } from '../errors.js';
import type { Session } from '../session.js';
import { CONFIG_KEYS, type ConfigKey, isConfigKey } from '../store/config.js';
import { checkConfigValue } from '../store/config-values.js';

function key(name: string): ConfigKey {
  if (name === 'token')
    throw usageError('the token is set with lbrl auth login and shown with lbrl auth status --show-token');
  if (!isConfigKey(name))
    throw usageError(`unknown config key ${JSON.stringify(name)}: expected one of ${CONFIG_KEYS.join(', ')}`);
  return name;
}

export function get(name: string, session: Session): void {
  const k = key(name);
  const value = session.setting(k);
  if (value !== undefined) session.printer.out(value);
}

export async function set(name: string, value: string, session: Session): Promise<void> {
  const k = key(name);
  const network = k === 'network' ? value : session.setting('network');
  const checked = checkConfigValue(k, value, network);
  if (k === 'network') {
    const profile = session.profile();
    for (const addressKey of ['default-address', 'split-address'] as const) {
      const stored = profile[addressKey];
      if (stored !== undefined) {
        try {
          checkConfigValue(addressKey, stored, checked);
        } catch {
          session.printer.warn(`warning: ${addressKey} ${stored} is not a ${checked} address; set it again`);
        }
      }
    }
  }
  await session.store.updateProfile(session.profileName, (profile) => {
    profile[k] = checked;
  });
  session.printer.info(`${k} set to ${checked} (profile ${session.profileName})`);
}

export async function unset(name: string, session: Session): Promise<void> {
  const k = key(name);
  session.profile(); // unset does not create a profile: the name must exist
  await session.store.updateProfile(session.profileName, (profile) => {
    delete profile[k];
  });
  session.printer.info(`${k} unset (profile ${session.profileName})`);
}

export function list(session: Session): void {
  const profile = session.profile();
  const entries: Record<string, string | null> = {};
  for (const k of CONFIG_KEYS) entries[k] = session.setting(k) ?? null;
  if (session.globals.json) {
    session.printer.json({
      profile: session.profileName,
      ...entries,
      token: profile.token !== undefined ? 'set' : null,
    });
    return;
  }
  const lines = CONFIG_KEYS.map((k) => `${k}=${entries[k] ?? ''}`);
  lines.push(`token=${profile.token !== undefined ? '(set; see lbrl auth status)' : ''}`);
  session.printer.out(lines.join('\n'));
}
