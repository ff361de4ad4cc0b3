/** The checks of `config set`: only that command needs the address codecs. */
import { parseBaseUrl, withoutCredentials } from '../api/baseurl.js';
import { readShopName } from '../domain/display.js';
import { readExpireAfter, readRequestsPerMinute } from '../domain/expiry.js';
import { article, decodeLiquidAddress } from '../domain/liquid/address.js';
import { isNetwork, NETWORKS } from '../domain/liquid/networks.js';
import { readSplitFee } from '../domain/split.js';
import { parseWholeNumber } from '../domain/values.js';
import { invalidValue } from '../errors.js';
import type { ConfigKey } from './config.js';

/** Check and normalise a value for `config set`; `network` is the profile's, for addresses. */
export function checkConfigValue(key: ConfigKey, value: string, network: string): string {
  const refuse = (expected: string) => invalidValue(`value for ${key}`, withoutCredentials(value), expected);
  switch (key) {
    case 'base-url': {
      const r = parseBaseUrl(value);
      if (!r.ok) throw refuse(r.expected);
      return r.value;
    }
    case 'network':
      if (!isNetwork(value)) throw refuse(`one of ${NETWORKS.join(', ')}`);
      return value;
    case 'default-address':
    case 'split-address': {
      const r = decodeLiquidAddress(value);
      if (!r.ok) throw refuse(`a Liquid address (${r.reason})`);
      if (r.value.network !== network) {
        throw refuse(
          `${article(network)} ${network} address (this is ${article(r.value.network)} ${r.value.network} address; set network first)`,
        );
      }
      return r.value.address;
    }
    case 'split-fee': {
      const r = readSplitFee(value);
      if (!r.ok) throw refuse(r.expected);
      return r.value.wire;
    }
    case 'sandbox-autopay': {
      if (value === 'off') return value;
      const r = parseWholeNumber(value, 0, 3600, 'a whole number of seconds from 0 to 3600, or off');
      if (!r.ok) throw refuse(r.expected);
      return String(r.value);
    }
    case 'esplora-url': {
      const r = parseBaseUrl(value);
      if (!r.ok)
        throw refuse(`an Esplora API URL such as https://blockstream.info/liquid/api (${r.expected})`);
      return r.value;
    }
    case 'asset-id':
      if (!/^[0-9a-fA-F]{64}$/.test(value)) throw refuse('an asset id: 64 hex digits');
      return value.toLowerCase();
    case 'asset-precision': {
      const r = parseWholeNumber(
        value,
        0,
        8,
        "the asset-id's number of decimals, a whole number from 0 to 8",
      );
      if (!r.ok) throw refuse(r.expected);
      return String(r.value);
    }
    case 'confirmations': {
      const r = parseWholeNumber(value, 1, 1000, 'a whole number of confirmations from 1 to 1000');
      if (!r.ok) throw refuse(r.expected);
      return String(r.value);
    }
    case 'verify':
      if (value !== 'on' && value !== 'off')
        throw refuse('on (watch checks each settlement on chain) or off');
      return value;
    case 'expire-after': {
      const r = readExpireAfter(value);
      if (!r.ok) throw refuse(r.expected);
      return value;
    }
    case 'requests-per-minute': {
      const r = readRequestsPerMinute(value);
      if (!r.ok) throw refuse(r.expected);
      return String(r.value);
    }
    case 'shop-name': {
      const r = readShopName(value);
      if (!r.ok) throw refuse(r.expected);
      return r.value;
    }
    case 'qr-style':
      if (value !== 'dark' && value !== 'light' && value !== 'detect')
        throw refuse('dark (light modules on a dark terminal), light, or detect (ask the terminal)');
      return value;
  }
}
