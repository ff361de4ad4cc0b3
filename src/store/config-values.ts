/** The checks of `config set`: only that command needs the address codecs. */
import { parseBaseUrl, withoutCredentials } from '../api/baseurl.js';
import { readShopName } from '../domain/display.js';
import { readExpireAfter, readRequestsPerMinute } from '../domain/expiry.js';
import { readLedgerSetting, shownLedgerUrl } from '../domain/ledger-url.js';
import { article, decodeLiquidAddress } from '../domain/liquid/address.js';
import { isNetwork, NETWORKS } from '../domain/liquid/networks.js';
import { readSplitFee } from '../domain/split.js';
import { parseWholeNumber, readHex32 } from '../domain/values.js';
import { invalidValue } from '../errors.js';
import type { ConfigKey } from './config.js';

/** Check and normalise a value for `config set`; `network` is the profile's, for addresses. */
/** The settings that name the service, the chain and the money. */
type ChainKey =
  | 'base-url'
  | 'network'
  | 'default-address'
  | 'split-address'
  | 'split-fee'
  | 'sandbox-autopay'
  | 'esplora-url'
  | 'asset-id'
  | 'asset-precision'
  | 'confirmations';

export function checkConfigValue(key: ConfigKey, value: string, network: string): string {
  const shown = key === 'ledger' ? shownLedgerUrl(value) : withoutCredentials(value);
  const refuse = (expected: string) => invalidValue(`value for ${key}`, shown, expected);
  switch (key) {
    case 'base-url': {
      const parsed = parseBaseUrl(value);
      if (!parsed.ok) throw refuse(parsed.expected);
      return parsed.value;
    }
    case 'network':
      if (!isNetwork(value)) throw refuse(`one of ${NETWORKS.join(', ')}`);
      return value;
    case 'default-address':
    case 'split-address': {
      const address = decodeLiquidAddress(value);
      if (!address.ok) throw refuse(`a Liquid address (${address.reason})`);
      if (address.value.network !== network) {
        throw refuse(
          `${article(network)} ${network} address (this is ${article(address.value.network)} ${address.value.network} address; set network first)`,
        );
      }
      return address.value.address;
    }
    case 'split-fee': {
      const parsed = readSplitFee(value);
      if (!parsed.ok) throw refuse(parsed.expected);
      return parsed.value.wire;
    }
    case 'sandbox-autopay': {
      if (value === 'off') return value;
      const parsed = parseWholeNumber(value, 0, 3600, 'a whole number of seconds from 0 to 3600, or off');
      if (!parsed.ok) throw refuse(parsed.expected);
      return String(parsed.value);
    }
    case 'esplora-url': {
      const parsed = parseBaseUrl(value);
      if (!parsed.ok)
        throw refuse(`an Esplora API URL such as https://blockstream.info/liquid/api (${parsed.expected})`);
      return parsed.value;
    }
    case 'asset-id': {
      const assetId = readHex32(value);
      if (assetId === null) throw refuse('an asset id: 64 hex digits');
      return assetId;
    }
    case 'asset-precision': {
      const parsed = parseWholeNumber(
        value,
        0,
        8,
        "the asset-id's number of decimals, a whole number from 0 to 8",
      );
      if (!parsed.ok) throw refuse(parsed.expected);
      return String(parsed.value);
    }
    case 'confirmations': {
      const parsed = parseWholeNumber(value, 1, 1000, 'a whole number of confirmations from 1 to 1000');
      if (!parsed.ok) throw refuse(parsed.expected);
      return String(parsed.value);
    }
    default:
      return checkLocalValue(key, value, refuse);
  }
}

/** The settings of lbrl's own behaviour (not of the service or the chain), checked. */
function checkLocalValue(
  key: Exclude<ConfigKey, ChainKey>,
  value: string,
  refuse: (expected: string) => Error,
): string {
  switch (key) {
    case 'verify':
      if (value !== 'on' && value !== 'off')
        throw refuse('on (watch checks each settlement on chain) or off');
      return value;
    case 'expire-after': {
      const parsed = readExpireAfter(value);
      if (!parsed.ok) throw refuse(parsed.expected);
      return value;
    }
    case 'requests-per-minute': {
      const parsed = readRequestsPerMinute(value);
      if (!parsed.ok) throw refuse(parsed.expected);
      return String(parsed.value);
    }
    case 'shop-name': {
      const parsed = readShopName(value);
      if (!parsed.ok) throw refuse(parsed.expected);
      return parsed.value;
    }
    case 'ledger': {
      const parsed = readLedgerSetting(value);
      if (!parsed.ok) throw refuse(parsed.expected);
      return value;
    }
    case 'qr-style':
      if (value !== 'dark' && value !== 'light' && value !== 'detect')
        throw refuse('dark (light modules on a dark terminal), light, or detect (ask the terminal)');
      return value;
  }
}
