/** A profile's settings as the flows read them: pure functions of the profile, no I/O. */
import path from 'node:path';
import type { RequestDefaults } from '../deposits/ports.js';
import { isNetwork, type Network } from '../domain/liquid/networks.js';
import { usageError } from '../errors.js';
import { type ConfigKey, DEFAULTS, type DefaultedKey, type Profile } from '../store/config.js';

/** The profile's value of a setting, or its default (always a value, for a setting that has one). */
export function settingOf<K extends ConfigKey>(
  profile: Profile,
  key: K,
): K extends DefaultedKey ? string : string | undefined {
  return (profile[key] ?? DEFAULTS[key]) as K extends DefaultedKey ? string : string | undefined;
}

/** The profile's network, checked. */
export function networkOf(profile: Profile): Network {
  const network = settingOf(profile, 'network');
  if (!isNetwork(network))
    throw usageError(
      `the profile's network ${JSON.stringify(network)} is not liquid, liquidtestnet or elementsregtest`,
    );
  return network;
}

/** The profile's network when its setting names one, else undefined (never thrown). */
export function networkSetting(profile: Profile): Network | undefined {
  const network = settingOf(profile, 'network');
  return isNetwork(network) ? network : undefined;
}

/** The settings a deposit request is checked against (the network is checked first). */
export function requestDefaultsOf(profile: Profile): RequestDefaults {
  return {
    network: networkOf(profile),
    defaultAddress: settingOf(profile, 'default-address'),
    splitAddress: settingOf(profile, 'split-address'),
    splitFee: settingOf(profile, 'split-fee'),
  };
}

/** Where the embedded sandbox keeps its data, beside the config. */
export function sandboxDirOf(configDir: string): string {
  return path.join(configDir, 'sandbox');
}
