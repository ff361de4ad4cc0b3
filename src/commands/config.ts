import { withoutCredentials } from '../api/baseurl.js';
import type { Context } from '../context.js';
import type { Target } from '../deposits/ports.js';
import { ledgerUrlSecrets, shownLedgerUrl } from '../domain/ledger-url.js';
import type { Network } from '../domain/liquid/networks.js';
import { blindingKeySecrets, looksLikeBlindingKey } from '../domain/text/redact.js';
import { terminalSafe } from '../domain/text/safe-text.js';
import { invalidValue, quoted, usageError } from '../errors.js';
import { type Factory, targetInputsOf } from '../factory/factory.js';
import { networkOf, settingOf } from '../factory/settings.js';
import { baseUrlSource } from '../factory/target.js';
import {
  type BlindingKeyEntry,
  CONFIG_KEYS,
  type ConfigKey,
  DEFAULTS,
  isConfigKey,
  type Profile,
} from '../store/config.js';
import { checkConfigValue } from '../store/config-values.js';
import type { Printer } from '../ui/output.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';

const BLINDING_KEY_FLAGS = [
  { flags: '--address <liquid-address>', help: "the key is this address's (default: the whole wallet)" },
  { flags: '--clear', help: 'remove the stored keys (of --address, or all)' },
] as const satisfies readonly FlagDef[];

function key(name: string): ConfigKey {
  if (name === 'token')
    throw usageError('the token is set with lbrl auth login and shown with lbrl auth status --show-token');
  if (name === 'blinding-keys' || name === 'blinding-key')
    throw usageError(
      'blinding keys are secrets: set one with lbrl config set-blinding-key [--address <address>] < key.txt (or at its prompt); remove them with --clear',
    );
  if (!isConfigKey(name))
    throw usageError(`unknown config key ${quoted(name)}: expected one of ${CONFIG_KEYS.join(', ')}`);
  return name;
}

/** A setting's value as output shows it: a URL without its password (the ledger's keeps its user). */
function shownSetting(key: ConfigKey, value: string): string {
  return key === 'ledger' ? shownLedgerUrl(value) : withoutCredentials(value);
}

/** Where the value in force of a setting came from. */
export type SettingSource = 'flag' | 'environment' | 'profile' | 'default' | 'unset';

export interface SettingInForce {
  key: ConfigKey;
  /** what commands use; null when nothing applies (or what applies is not one value) */
  value: string | null;
  source: SettingSource;
  /** a word more on the source: the flag or variable, the profile, what a default means */
  detail: string;
}

/** All `config get` needs (gh's Options struct): the factory's getters fill it in; a test hands plain values. */
export interface GetSettingOptions {
  printer: Printer;
  json: boolean;
  profileName: string;
  /** where the profiles are kept */
  configFile: string;
  /** the profile as saved */
  profile(): Profile;
  /** --base-url or LBRL_BASE_URL, when given */
  baseUrlSetting(): { value: string; from: string } | undefined;
  /** the service the commands would use (throws when it is configured by half) */
  target(): Target;
  network(): Network;
  /** the environment, for the variables that override a setting (LBRL_LEDGER_URL) */
  env?: Record<string, string | undefined>;
}

/** The factory's getters, narrowed to what `config get` uses. */
export function getSettingOptionsOf(factory: Factory): GetSettingOptions {
  return {
    printer: factory.printer,
    json: factory.globals.json === true,
    profileName: factory.profileName,
    configFile: factory.config().file,
    profile: () => factory.profile(),
    baseUrlSetting: () => baseUrlSource(targetInputsOf(factory)),
    target: () => factory.target(),
    network: () => networkOf(factory.profile()),
    env: factory.ctx.env,
  };
}

/** The value a command would use for a setting, and where it came from. */
export async function inForce(key: ConfigKey, options: GetSettingOptions): Promise<SettingInForce> {
  const profile = options.profile();
  if (key === 'base-url') {
    const given = options.baseUrlSetting();
    if (given?.from === '--base-url')
      return { key, value: given.value, source: 'flag', detail: '--base-url' };
    if (given?.from === 'LBRL_BASE_URL')
      return { key, value: given.value, source: 'environment', detail: 'LBRL_BASE_URL' };
  }
  const fromEnv = key === 'ledger' ? options.env?.LBRL_LEDGER_URL : undefined;
  if (fromEnv !== undefined) return { key, value: fromEnv, source: 'environment', detail: 'LBRL_LEDGER_URL' };
  const saved = profile[key];
  if (saved !== undefined)
    return {
      key,
      value: saved,
      source: 'profile',
      detail: `profile ${options.profileName} in ${options.configFile}`,
    };
  const unset = (detail: string): SettingInForce => ({ key, value: null, source: 'unset', detail });
  const byDefault = (value: string | null, detail: string): SettingInForce => ({
    key,
    value,
    source: 'default',
    detail,
  });
  switch (key) {
    case 'qr-style':
      return byDefault('detect', 'asks the terminal for its background; dark when it does not answer');
    case 'esplora-url':
    case 'asset-id': {
      let sandbox = false;
      try {
        sandbox = options.target().mode === 'sandbox';
      } catch {
        // a half-configured target: the live defaults
      }
      const network = options.network();
      if (key === 'esplora-url') {
        const { DEFAULT_ESPLORA } = await import('../api/esplora.js');
        const url = DEFAULT_ESPLORA[network];
        // the embedded sandbox checks its own chain: while it is in use, its explorer is used instead
        const meanwhile = sandbox
          ? "; the embedded sandbox, in use now, checks on its own chain's explorer"
          : '';
        return url
          ? byDefault(url, `the public explorer of ${network}${meanwhile}`)
          : unset(`no explorer is known for ${network}${meanwhile}`);
      }
      if (sandbox) {
        const { SANDBOX_ASSET_ID } = await import('../sandbox/chain.js');
        return byDefault(SANDBOX_ASSET_ID, "the embedded sandbox's asset");
      }
      return unset('verify cannot pin the asset until one is set');
    }
    default: {
      const value = DEFAULTS[key];
      return value !== undefined ? byDefault(value, 'default') : unset('not set');
    }
  }
}

/**
 * The value in force on stdout, bare, as scripts read it (nothing when none applies); where it
 * came from on stderr (`from: default`), or both as one JSON object with --json.
 */
export async function runGetSetting(name: string, options: GetSettingOptions): Promise<void> {
  const setting = key(name);
  const found = await inForce(setting, options);
  const printer = options.printer;
  // a URL written into the file by hand may carry a password: never shown
  const value = found.value === null ? null : shownSetting(setting, found.value);
  if (options.json) {
    printer.json({ ...found, value });
    return;
  }
  // a value edited into the file by hand is shown, never acted on by the terminal
  if (value !== null) printer.out(terminalSafe(value));
  const detail = found.detail === found.source ? '' : ` (${found.detail})`;
  printer.info(`from: ${found.source}${detail}`);
}

/**
 * All `config set` and `config unset` need (gh's Options struct): the factory's getters fill it in
 * (`changeSettingOptionsOf`); a test hands a profile as plain data and keeps what is written.
 */
export interface ChangeSettingOptions {
  printer: Printer;
  profileName: string;
  /** the profile as the file has it, its settings unchecked (set and unset repair a damaged one) */
  profileForRepair(): Profile;
  /** changes the profile in the config file, atomically */
  updateProfile(change: (profile: Profile) => void): Promise<void>;
}

/** The factory's getters, narrowed to what `config set` and `config unset` use. */
export function changeSettingOptionsOf(factory: Factory): ChangeSettingOptions {
  return {
    printer: factory.printer,
    profileName: factory.profileName,
    profileForRepair: () => factory.repairProfile(),
    updateProfile: (change) => factory.config().updateProfile(factory.profileName, change),
  };
}

/** Check the value by the key's rules (an address by the profile's network) and save it. */
export async function runSetSetting(
  name: string,
  value: string,
  options: ChangeSettingOptions,
): Promise<void> {
  const setting = key(name);
  // set repairs a damaged setting too: the profile is read unchecked, its network as a string
  const profile = options.profileForRepair();
  const saved = typeof profile.network === 'string' ? profile.network : undefined;
  const network = setting === 'network' ? value : (saved ?? DEFAULTS.network);
  // a database password given on the command line is a secret from here on
  for (const secret of setting === 'ledger' ? ledgerUrlSecrets(value) : []) options.printer.addSecret(secret);
  const checked = checkConfigValue(setting, value, network);
  if (setting === 'network') {
    for (const addressKey of ['default-address', 'split-address'] as const) {
      const stored = profile[addressKey];
      if (typeof stored === 'string') {
        try {
          checkConfigValue(addressKey, stored, checked);
        } catch {
          options.printer.warn(`warning: ${addressKey} ${stored} is not a ${checked} address; set it again`);
        }
      }
    }
  }
  await options.updateProfile((profile) => {
    profile[setting] = checked;
  });
  options.printer.info(
    `${setting} set to ${shownSetting(setting, checked)} (profile ${options.profileName})`,
  );
}

/** Remove a setting from the profile (the webhook secret too, which only listen makes). */
export async function runUnsetSetting(name: string, options: ChangeSettingOptions): Promise<void> {
  // the webhook signing secret is made by listen, never set, but it can be removed (a damaged one,
  // or to make a new one)
  const setting = name === 'webhook-secret' ? name : key(name);
  // unset does not create a profile: the name must exist; it repairs a damaged setting, so the
  // others are not checked
  options.profileForRepair();
  await options.updateProfile((profile) => {
    delete profile[setting];
  });
  options.printer.info(`${setting} unset (profile ${options.profileName})`);
}

/** Only whether blinding keys are set, and for what: never the keys. */
function blindingKeysShown(entries: Array<{ address?: string }> | undefined): string | null {
  if (!entries || entries.length === 0) return null;
  const wallet = entries.filter((e) => !e.address).length;
  const addresses = entries.length - wallet;
  return [wallet ? `${wallet} for the wallet` : '', addresses ? `${addresses} for single addresses` : '']
    .filter(Boolean)
    .join(', ')
    .replace(/^/, 'set: ');
}

/** All `config list` needs (gh's Options struct): the factory's getters fill it in; a test hands plain values. */
export interface ListSettingsOptions {
  printer: Printer;
  json: boolean;
  profileName: string;
  /** the profile as saved: whether a token and blinding keys are set (never their values) */
  profile: Pick<Profile, 'token' | 'blinding-keys'>;
  /** the value in force of a setting */
  setting(key: ConfigKey): string | undefined;
}

/** The factory's getters, narrowed to what `config list` uses. */
export function listSettingsOptionsOf(factory: Factory): ListSettingsOptions {
  return {
    printer: factory.printer,
    json: factory.globals.json === true,
    profileName: factory.profileName,
    profile: factory.profile(),
    setting: (k) => settingOf(factory.profile(), k),
  };
}

/** Every setting in force, a URL without its credentials; the token and keys only as set or not. */
export function runListSettings(options: ListSettingsOptions): void {
  const { profile, printer } = options;
  const entries: Record<string, string | null> = {};
  for (const k of CONFIG_KEYS) {
    const value = options.setting(k);
    entries[k] = value === undefined ? null : shownSetting(k, value);
  }
  if (options.json) {
    printer.json({
      profile: options.profileName,
      ...entries,
      token: profile.token !== undefined ? 'set' : null,
      'blinding-keys': blindingKeysShown(profile['blinding-keys']),
    });
    return;
  }
  const lines = CONFIG_KEYS.map((k) => `${k}=${terminalSafe(entries[k] ?? '')}`);
  lines.push(`token=${profile.token !== undefined ? '(set; see lbrl auth status)' : ''}`);
  const keys = blindingKeysShown(profile['blinding-keys']);
  lines.push(`blinding-keys=${keys ? `(${keys}; never shown)` : ''}`);
  printer.out(lines.join('\n'));
}

export type BlindingKeyOptions = OptionsOf<typeof BLINDING_KEY_FLAGS>;

/**
 * All `config set-blinding-key` needs (gh's Options struct): the factory's getters fill it in
 * (`blindingKeyOptionsOf`); a test hands stdin or a prompter, a profile as plain data, and keeps
 * what is written.
 */
export interface BlindingKeyCommandOptions {
  flags: BlindingKeyOptions;
  printer: Printer;
  profileName: string;
  /** stdin, stdout and the environment (whether a person can be asked), and a prompter in tests */
  ctx: Context;
  /** --no-input */
  input: boolean | undefined;
  /** whether the prompt may be coloured (--no-color is false; the printer judges the rest) */
  color: boolean;
  /** the profile, checked; and as the file has it, for --clear (which repairs damaged keys) */
  profile(): Profile;
  profileForRepair(): Profile;
  /** changes the profile in the config file, atomically */
  updateProfile(change: (profile: Profile) => void): Promise<void>;
}

/** The factory's getters, narrowed to what `config set-blinding-key` uses. */
export function blindingKeyOptionsOf(flags: BlindingKeyOptions, factory: Factory): BlindingKeyCommandOptions {
  return {
    flags,
    printer: factory.printer,
    profileName: factory.profileName,
    ctx: factory.ctx,
    input: factory.globals.input,
    color: factory.globals.color !== false,
    profile: () => factory.profile(),
    profileForRepair: () => factory.repairProfile(),
    updateProfile: (change) => factory.config().updateProfile(factory.profileName, change),
  };
}

/**
 * Store a blinding key (a secret, like the token: in the 0600 config file, never printed),
 * read from stdin or a prompt that does not echo; never from the command line.
 */
export async function runSetBlindingKey(options: BlindingKeyCommandOptions): Promise<void> {
  const { ctx, printer, flags: opts } = options;
  // a key kept in a misspelt profile would never be used: the name must exist, as for unset;
  // --clear repairs damaged keys, so it reads the profile unchecked
  const profile = opts.clear ? options.profileForRepair() : options.profile();
  let address: string | undefined;
  if (opts.address !== undefined) {
    if (looksLikeBlindingKey(opts.address))
      throw usageError(
        'invalid --address: that is a blinding key, not an address; give the key on stdin (lbrl config set-blinding-key < key.txt), never on the command line',
      );
    const network = typeof profile.network === 'string' ? profile.network : 'liquid';
    const { article, decodeLiquidAddress } = await import('../domain/liquid/address.js');
    const decoded = decodeLiquidAddress(opts.address);
    if (!decoded.ok) throw invalidValue('--address', opts.address, `a Liquid address (${decoded.reason})`);
    if (decoded.value.network !== network)
      throw invalidValue(
        '--address',
        opts.address,
        `${article(network)} ${network} address (this is ${article(decoded.value.network)} ${decoded.value.network} address)`,
      );
    address = decoded.value.address;
  }
  const scope = address ? `address ${address}` : 'the wallet (every address)';
  if (opts.clear) {
    await options.updateProfile((profile) => {
      const stored = profile['blinding-keys'] as unknown;
      // a damaged list keeps only its sound entries for other addresses
      const kept = (
        Array.isArray(stored) ? (stored as Array<{ key?: unknown; address?: unknown }>) : []
      ).filter(
        (entry) =>
          address !== undefined &&
          entry &&
          typeof entry.key === 'string' &&
          (entry.address === undefined || (typeof entry.address === 'string' && entry.address !== address)),
      ) as BlindingKeyEntry[];
      if (kept.length > 0) profile['blinding-keys'] = kept;
      else delete profile['blinding-keys'];
    });
    printer.info(
      `blinding keys of ${address ? scope : 'every address'} removed (profile ${options.profileName})`,
    );
    return;
  }
  let text: string;
  if (ctx.stdin.isTTY) {
    const { canPrompt, inquirerPrompter } = await import('../ui/prompts.js');
    if (!canPrompt(ctx, { input: options.input }))
      throw usageError(
        'no terminal to ask for the blinding key: pipe it in: lbrl config set-blinding-key < key.txt',
      );
    const prompter = ctx.prompter ?? (await inquirerPrompter(ctx, options.color));
    text = await prompter.password({ message: `Blinding key for ${scope}` });
  } else {
    const { readInput } = await import('../context.js');
    text = await readInput(ctx.stdin, 4096, 'the blinding key');
  }
  const key = text.trim();
  for (const secret of blindingKeySecrets(key)) printer.addSecret(secret);
  const { parseBlindingKey } = await import('../domain/liquid/unblind.js');
  const parsed = parseBlindingKey(key);
  if (!parsed.ok) throw usageError(`the blinding key given is not usable: expected ${parsed.expected}`);
  if (address) await checkAddressKey(address, parsed.value);
  await options.updateProfile((profile) => {
    const others = (profile['blinding-keys'] ?? []).filter((e) =>
      address ? e.address !== address : e.address !== undefined || e.key !== key,
    );
    profile['blinding-keys'] = [...others, address ? { key, address } : { key }];
  });
  printer.info(`blinding key set for ${scope} (profile ${options.profileName}); it is never printed`);
}

/**
 * A key given with --address must be that address's blinding key: its public key (or, for a
 * master key, the SLIP-77 key it derives for the address's script) is the one in the confidential
 * address. Anything else is refused before the profile is touched, so a good key is never
 * replaced by a wrong one.
 */
async function checkAddressKey(
  address: string,
  key: { outputKeys: Uint8Array[]; masterBlindingKeys: Uint8Array[] },
): Promise<void> {
  const { addressScript } = await import('../domain/liquid/script.js');
  const script = addressScript(address);
  if (!script.ok) throw invalidValue('--address', address, `a Liquid address (${script.reason})`);
  const blindingPubkey = script.value.blindingPubkey;
  if (!blindingPubkey)
    throw usageError(
      `--address ${address} is not confidential: its outputs are not blinded, so it has no blinding key (give the confidential address)`,
    );
  const { isAddressBlindingKey, loadZkp } = await import('../domain/liquid/unblind.js');
  if (!isAddressBlindingKey(await loadZkp(), key, { script: script.value.script, blindingPubkey }))
    throw usageError(
      `the blinding key given is not the blinding key of ${address}: its public key is not the one in the address (expected the output of elements-cli dumpblindingkey ${address}, or the wallet's master blinding key); nothing was changed`,
    );
}

const KEY_ARG = { name: '<key>', help: CONFIG_KEYS.join(', '), complete: 'config-keys' } as const;

export const CONFIG_GET = command({
  rank: 140,
  path: 'config get',
  description: 'print the value in force of a setting (where it comes from on stderr)',
  long: `The value a command would use, bare on stdout, so \`$(lbrl config get network)\` reads it: from a flag, the environment, the profile or the default. Where it came from goes to stderr as one line (\`-q\` leaves it out); with nothing in force, nothing on stdout.`,
  args: [KEY_ARG],
  flags: [],
  examples: ['lbrl config get network', 'lbrl config get esplora-url --json'],
  async run({ args: [key], factory }) {
    return runGetSetting(key, getSettingOptionsOf(await factory()));
  },
});

export const CONFIG_SET = command({
  rank: 150,
  path: 'config set',
  description: 'change a setting (the value is checked)',
  long: `A value is checked before it is saved, and the config file is written whole or not at all (mode 0600). Naming a profile that does not exist yet makes it.`,
  args: [KEY_ARG, { name: '<value>', help: 'the new value', complete: 'config-value' }],
  flags: [],
  examples: ['lbrl config set network liquidtestnet --profile test', 'lbrl config set sandbox-autopay off'],
  async run({ args: [key, value], factory }) {
    return runSetSetting(key, value, changeSettingOptionsOf(await factory({ creatingProfile: true })));
  },
});

export const CONFIG_UNSET = command({
  rank: 160,
  path: 'config unset',
  description: 'remove a setting',
  long: `The setting is taken out of the profile (\`--profile\`, else the default one), so the environment or the default applies again: \`config get <key>\` says which. Unsetting what is not set is no error; a profile that does not exist is. It also repairs a damaged setting (a config error names it) without reading the rest of the profile, and removes \`webhook-secret\`, which \`listen\` then makes anew.`,
  args: [KEY_ARG],
  flags: [],
  examples: [
    'lbrl config unset split-fee',
    'lbrl config unset base-url --profile shop && lbrl config get base-url',
  ],
  async run({ args: [key], factory }) {
    return runUnsetSetting(key, changeSettingOptionsOf(await factory()));
  },
});

export const CONFIG_SET_BLINDING_KEY = command({
  rank: 170,
  path: 'config set-blinding-key',
  description: 'store a blinding key to unblind settlements (read from stdin or a hidden prompt)',
  long: `A blinding key lets \`deposit verify\`, \`reconcile\` and \`--verify\` open the amounts and the asset of confidential outputs. It is a secret like the token: read without echo or from stdin, kept in the private config file, never printed. \`--clear\` removes the stored keys.`,
  flags: BLINDING_KEY_FLAGS,
  examples: [
    '# a SLIP-77 master blinding key (Elements: dumpmasterblindingkey; Blockstream Green shows it)',
    'lbrl config set-blinding-key < master-blinding-key.txt',
    "# one address's key (Elements: dumpblindingkey <address>)",
    'elements-cli dumpblindingkey "$ADDR" | lbrl config set-blinding-key --address "$ADDR"',
    '# a CT descriptor: ct(slip77(<hex>),elwpkh(...))',
    'printf %s "$DESCRIPTOR" | lbrl config set-blinding-key',
  ],
  async run({ opts, factory }) {
    return runSetBlindingKey(blindingKeyOptionsOf(opts, await factory()));
  },
});

export const CONFIG_LIST = command({
  rank: 180,
  path: 'config list',
  description: "print the profile's settings",
  long: `One \`key=value\` line per setting the profile holds, or its default (empty when there is none). Flags and the environment are not applied here: \`config get <key>\` says what a command would use and where it came from. A URL is shown without its user name or password, and the token and blinding keys only as set or not, never their values. \`--json\` prints one object, the profile's name first.`,
  flags: [],
  examples: ['lbrl config list', 'lbrl config list --profile shop --json'],
  async run({ factory }) {
    return runListSettings(listSettingsOptionsOf(await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(CONFIG_GET, CONFIG_SET, CONFIG_UNSET, CONFIG_SET_BLINDING_KEY, CONFIG_LIST);
