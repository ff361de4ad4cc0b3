/**
 * Profiles in one JSON file, private to the user. Reads are plain JSON (cheap, on every
 * command's path); writes go through conf, which writes atomically with mode 0600. The file is
 * opened only as an own regular file (src/store/files.ts), and the directory is changed only when
 * lbrl made it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ledgerUrlSecrets } from '../domain/ledger-url.js';
import { LbrlError, usageError } from '../errors.js';
import { currentUid, ensurePrivateDir, lstatOwnFile, openOwnFile } from './files.js';

const STAGING = '.config.json.writing-';
/** A config file holds a few profiles (a few KB): one larger than this is refused, not read whole. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** The file's text without the byte-order mark an editor (Notepad) may put first; it is written back without it. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export const CONFIG_KEYS = [
  'base-url',
  'network',
  'default-address',
  'split-address',
  'split-fee',
  'sandbox-autopay',
  'qr-style',
  'esplora-url',
  'asset-id',
  'asset-precision',
  'confirmations',
  'verify',
  'expire-after',
  'requests-per-minute',
  'shop-name',
  'ledger',
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export interface Profile {
  'base-url'?: string;
  token?: string;
  network?: string;
  'default-address'?: string;
  'split-address'?: string;
  'split-fee'?: string;
  'sandbox-autopay'?: string;
  'qr-style'?: string;
  'esplora-url'?: string;
  'asset-id'?: string;
  /** the asset-id's decimals, when no registry contract proves them */
  'asset-precision'?: string;
  confirmations?: string;
  verify?: string;
  'expire-after'?: string;
  'requests-per-minute'?: string;
  /** the shop's name on the customer's screen (`lbrl display`) */
  'shop-name'?: string;
  /** where the history lives: `file` or a PostgreSQL URL, whose password is a secret like the token */
  ledger?: string;
  /** the signing secret of `lbrl listen` (whsec_...): made by listen, printed only by `listen --print-secret` */
  'webhook-secret'?: string;
  /** secrets, like the token: set only by `config set-blinding-key`, never printed */
  'blinding-keys'?: BlindingKeyEntry[];
}

/** A blinding key as given (hex, slip77(...) or a ct(...) descriptor), for one address or the wallet. */
export interface BlindingKeyEntry {
  key: string;
  address?: string;
}

export interface ConfigFile {
  profiles?: Record<string, Profile>;
}

/** The settings that have a value when the profile has none. */
export type DefaultedKey =
  | 'network'
  | 'sandbox-autopay'
  | 'qr-style'
  | 'confirmations'
  | 'verify'
  | 'expire-after'
  | 'requests-per-minute'
  | 'ledger';

export const DEFAULTS: Record<DefaultedKey, string> & Partial<Record<ConfigKey, string>> = {
  network: 'liquid',
  'sandbox-autopay': '5',
  // asks the terminal for its background (deposit create), dark where it cannot
  'qr-style': 'detect',
  confirmations: '2',
  verify: 'off',
  'expire-after': '24h',
  'requests-per-minute': '60',
  ledger: 'file',
};

export function configDir(env: Record<string, string | undefined>, home: string = os.homedir()): string {
  if (env.LBRL_CONFIG_DIR) return path.resolve(env.LBRL_CONFIG_DIR);
  const base = env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(home, '.config');
  return path.join(base, 'lbrl');
}

export function isConfigKey(key: string): key is ConfigKey {
  return (CONFIG_KEYS as readonly string[]).includes(key);
}

export class ConfigStore {
  readonly file: string;
  private cache: ConfigFile | undefined;

  constructor(
    readonly dir: string,
    private readonly warn: (line: string) => void = () => {},
  ) {
    this.file = path.join(dir, 'config.json');
  }

  /** Read the file again at the next read (a long-running command follows settings changed meanwhile). */
  forget(): void {
    this.cache = undefined;
  }

  read(): ConfigFile {
    if (this.cache) return this.cache;
    const opened = openOwnFile(this.file, 'read', 'config file', this.warn);
    if (!opened) return (this.cache = {});
    let text: string;
    try {
      if (opened.stat.size > MAX_CONFIG_BYTES) {
        throw new LbrlError(
          `the config file ${this.file} is ${opened.stat.size} bytes, larger than the ${MAX_CONFIG_BYTES} bytes (1 MB) a config file may be; it was not read: fix or remove it`,
          'config_invalid',
        );
      }
      text = withoutBom(fs.readFileSync(opened.fd, 'utf8'));
    } catch (error) {
      if (error instanceof LbrlError) throw error;
      throw new LbrlError(`cannot read ${this.file}: ${(error as Error).message}`, 'config');
    } finally {
      fs.closeSync(opened.fd);
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      this.cache = parsed as ConfigFile;
    } catch (error) {
      throw new LbrlError(
        `the config file ${this.file} is damaged (${damage(text, (error as Error).message)}); fix or remove it`,
        'config_invalid',
      );
    }
    const profiles = (this.cache as { profiles?: unknown }).profiles;
    if (profiles !== undefined && !isPlainObject(profiles)) {
      this.cache = undefined;
      throw new LbrlError(
        `the config file ${this.file} is damaged: "profiles" is ${shownKind(profiles)}, not an object of profiles; fix or remove it`,
        'config_invalid',
      );
    }
    return this.cache;
  }

  /**
   * A profile, every setting of it checked for its type: a damaged one is a config error naming
   * the file, the profile, the key and the command that repairs it.
   */
  profile(name: string): Profile {
    const profile = this.rawProfile(name);
    const problem = profileProblem(profile);
    if (problem) {
      const where = `key "${problem.key}" of profile ${JSON.stringify(name)} in ${this.file}`;
      throw new LbrlError(
        `the config file is damaged: ${where} is ${problem.got}, expected ${problem.expected}; repair it with ${repairCommand(problem.key, name)}`,
        'config_invalid',
      );
    }
    return profile;
  }

  /**
   * A profile as the file has it, unchecked: for the commands that repair one (config unset,
   * config set-blinding-key --clear, auth logout), which must work on a damaged profile.
   */
  rawProfile(name: string): Profile {
    // the file's own profile of that name: "constructor" or "toString" is a name like any other
    const profile = ownProfile(this.read().profiles, name);
    if (profile === undefined) return {};
    if (!isPlainObject(profile)) throw this.damagedProfileError(name, profile);
    return profile as Profile;
  }

  private damagedProfileError(name: string, profile: unknown): LbrlError {
    return new LbrlError(
      `the config file is damaged: profile ${JSON.stringify(name)} in ${this.file} is ${shapeOf(profile)}, not an object of settings; remove it with lbrl auth logout${name === 'default' ? '' : ` --profile ${name}`} (nothing of it can be read: set its settings again after), or fix the file`,
      'config_invalid',
    );
  }

  /** What a profile is when it is not an object of settings (`an array`, `a string`), else undefined. */
  damagedProfile(name: string): string | undefined {
    const profile = ownProfile(this.read().profiles, name);
    return profile === undefined || isPlainObject(profile) ? undefined : shapeOf(profile);
  }

  /**
   * Remove a profile that is not an object of settings, whole: nothing of it can be read, so
   * nothing of it can be kept (`auth logout`'s way out of a damaged profile, as `gh auth logout`
   * removes a host's entry). A profile that is sound is left alone. Whether one was removed.
   */
  async removeDamagedProfile(name: string): Promise<boolean> {
    let removed = false;
    await this.update((config) => {
      const profile = ownProfile(config.profiles, name);
      if (profile === undefined || isPlainObject(profile)) return;
      delete config.profiles![name];
      removed = true;
    });
    return removed;
  }

  profileNames(): string[] {
    return Object.keys(this.read().profiles ?? {});
  }

  /**
   * Read, change and write the file atomically, private to the user, under a lock so that
   * two processes changing different keys at once both keep their change.
   */
  async update(mutate: (config: ConfigFile) => void): Promise<void> {
    ensurePrivateDir(this.dir);
    // refused before anything is locked or written: a link, another user's file
    lstatOwnFile(this.file, 'config file');
    const release = await this.lock();
    try {
      this.removeLeftovers();
      this.cache = undefined;
      const current = structuredClone(this.read());
      mutate(current);
      await this.write(current);
    } finally {
      release();
    }
  }

  /** An exclusive lock file holding its pid; one left by a process that is gone is taken over. */
  private async lock(): Promise<() => void> {
    const file = `${this.file}.lock`;
    const started = Date.now();
    for (;;) {
      try {
        const fd = fs.openSync(file, 'wx', 0o600);
        fs.writeSync(fd, String(process.pid));
        fs.closeSync(fd);
        return () => fs.rmSync(file, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (lockIsStale(file)) fs.rmSync(file, { force: true });
      if (Date.now() - started > 15_000) {
        throw new LbrlError(
          `the config file ${this.file} stayed locked by another lbrl for 15 s (${file})`,
          'config',
        );
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /**
   * conf writes atomically (a temporary file, fsync, rename), but it resolves links and keeps an
   * existing file's owner. So it writes in a private directory of its own that only this process
   * uses, and the finished file is renamed into place: a rename replaces the path, never what a
   * link there points to, and a kill -9 at any moment leaves the old file or the new one.
   */
  private async write(current: ConfigFile): Promise<void> {
    const { default: Conf } = await import('conf');
    const staging = fs.mkdtempSync(path.join(this.dir, STAGING));
    try {
      const conf = new Conf<Record<string, unknown>>({
        cwd: staging,
        configName: 'config',
        projectName: 'lbrl',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
      conf.store = current as Record<string, unknown>;
      // checked again under the lock, just before the rename
      lstatOwnFile(this.file, 'config file');
      fs.renameSync(path.join(staging, 'config.json'), this.file);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    this.cache = current;
  }

  /** Staging directories left by a process killed while writing (only the lock holder writes). */
  private removeLeftovers(): void {
    const uid = currentUid();
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.startsWith(STAGING)) continue;
      const file = path.join(this.dir, name);
      try {
        const stats = fs.lstatSync(file);
        if (stats.isDirectory() && (uid === undefined || stats.uid === uid))
          fs.rmSync(file, { recursive: true });
      } catch {
        // gone meanwhile, or not ours to remove
      }
    }
  }

  async updateProfile(name: string, mutate: (profile: Profile) => void): Promise<void> {
    await this.update((config) => {
      config.profiles ??= {};
      const profile = ownProfile(config.profiles, name) ?? {};
      // a list or a string is no profile to change: a setting put in it would be lost on writing
      if (!isPlainObject(profile)) throw this.damagedProfileError(name, profile);
      mutate(profile);
      config.profiles[name] = profile;
    });
  }
}

/** The file's own profile of that name: "constructor" or "toString" is a name like any other. */
function ownProfile<T>(profiles: Record<string, T> | undefined, name: string): T | undefined {
  return profiles && Object.hasOwn(profiles, name) ? profiles[name] : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a value is, without any of its content (it may be a secret): `an array`, `a string`, `null`. */
function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** What a value is, for a message: `a number`, `an array`, `null`. */
function shownKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The first setting of a profile whose type is wrong: every setting is a string, blinding keys a list. */
export function profileProblem(profile: Profile): { key: string; got: string; expected: string } | undefined {
  for (const [key, value] of Object.entries(profile)) {
    if (value === undefined) continue;
    if (key === 'blinding-keys') {
      const entries = value as unknown;
      const bad =
        !Array.isArray(entries) ||
        entries.some(
          (entry) =>
            !isPlainObject(entry) ||
            typeof entry.key !== 'string' ||
            (entry.address !== undefined && typeof entry.address !== 'string'),
        );
      // never the keys themselves: only what the value is
      if (bad)
        return {
          key,
          got: Array.isArray(entries)
            ? 'a list with an entry that is not {key: string}'
            : typeof entries === 'string'
              ? 'a string'
              : shownKind(entries),
          expected: 'a list of {key: string, address?: string}',
        };
      continue;
    }
    if (key === 'token' || key === 'webhook-secret' || (CONFIG_KEYS as readonly string[]).includes(key)) {
      if (typeof value !== 'string')
        return {
          key,
          // never a secret's value: only what it is
          got:
            key === 'token' || key === 'webhook-secret' ? `not a string (${typeof value})` : shownKind(value),
          expected: 'a string',
        };
    }
  }
  return undefined;
}

/** The command that repairs a damaged key. */
function repairCommand(key: string, profile: string): string {
  const flag = profile === 'default' ? '' : ` --profile ${profile}`;
  if (key === 'blinding-keys') return `lbrl config set-blinding-key --clear${flag}`;
  if (key === 'token') return `lbrl auth logout${flag} (then lbrl auth login)`;
  if (key === 'webhook-secret')
    return `lbrl config unset webhook-secret${flag} (lbrl listen then makes a new one; give it to your receivers)`;
  return `lbrl config unset ${key}${flag} (or lbrl config set ${key} <value>)`;
}

/** Left by a process that is gone (a kill -9), or older than 10 s. */
function lockIsStale(file: string): boolean {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8'));
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid) {
      try {
        process.kill(pid, 0);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
      }
    }
    return Date.now() - fs.statSync(file).mtimeMs > 10_000;
  } catch {
    return false; // gone meanwhile, or being written: try again
  }
}

/** Edit distance, for "did you mean": small strings only (profile names are at most 19 characters). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * A profile that is read must exist (the default always does): the same error for every command,
 * naming the profile, where it came from, the profiles there are, and how to create it.
 */
export function requireProfileExists(store: ConfigStore, name: string, from = '--profile'): void {
  if (name === 'default') return;
  const names = store.profileNames();
  if (names.includes(name)) return;
  const known = ['default', ...names.filter((n) => n !== 'default')];
  const close = known.filter((n) => distance(n.toLowerCase(), name.toLowerCase()) <= 2);
  const guess =
    close.length > 0 ? `; did you mean ${close.map((n) => JSON.stringify(n)).join(' or ')}?` : '.';
  throw usageError(
    `no profile named ${JSON.stringify(name)} (from ${from}); the profiles are: ${known.join(', ')}${guess} Create it with lbrl config set <key> <value> --profile ${name}, or lbrl auth login --profile ${name}`,
  );
}

/**
 * Every secret the config file holds (each profile's token, blinding keys and webhook signing
 * secret), read before
 * anything else so that output is redacted from its first line, even of a command that never reads
 * the profile (a token pasted as a deposit id). Lenient: a file that cannot be read yields nothing
 * (the command that reads the profile reports why), and a damaged one still gives up what looks
 * like a token or a key.
 */
/**
 * What is wrong with the config file's text, said without quoting it: the JSON parser's message
 * shows a piece of the text around the fault, and there the token or a secret may stand.
 */
function damage(text: string, message: string): string {
  if (message === 'not an object') return 'not a JSON object';
  const at = /position (\d+)/.exec(message);
  if (!at) return 'not valid JSON';
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return `not valid JSON at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

export function configSecrets(dir: string): { tokens: string[]; keys: string[]; webhooks: string[] } {
  const tokens: string[] = [];
  const keys: string[] = [];
  const webhooks: string[] = [];
  let text: string;
  try {
    const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants;
    const fd = fs.openSync(path.join(dir, 'config.json'), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile() || stat.size > MAX_CONFIG_BYTES) return { tokens, keys, webhooks };
      text = withoutBom(fs.readFileSync(fd, 'utf8'));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return { tokens, keys, webhooks };
  }
  try {
    const config = JSON.parse(text) as unknown;
    const profiles =
      config && typeof config === 'object' ? (config as { profiles?: unknown }).profiles : undefined;
    if (profiles && typeof profiles === 'object') {
      for (const profile of Object.values(profiles as Record<string, unknown>)) {
        if (!profile || typeof profile !== 'object') continue;
        const {
          token,
          'blinding-keys': entries,
          'webhook-secret': webhook,
          ledger,
        } = profile as {
          token?: unknown;
          ledger?: unknown;
          'blinding-keys'?: unknown;
          'webhook-secret'?: unknown;
        };
        if (typeof token === 'string') tokens.push(token);
        // a database password in the ledger URL is kept out like a token
        if (typeof ledger === 'string') tokens.push(...ledgerUrlSecrets(ledger));
        if (typeof webhook === 'string') webhooks.push(webhook);
        for (const entry of Array.isArray(entries) ? entries : [entries]) {
          if (typeof entry === 'string') keys.push(entry);
          else if (entry && typeof entry === 'object' && typeof (entry as { key?: unknown }).key === 'string')
            keys.push((entry as { key: string }).key);
        }
      }
    }
  } catch {
    // not JSON: whatever stands after "token", "key", "webhook-secret" or "ledger"
    for (const match of text.matchAll(/"(token|key|webhook-secret|ledger)"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) {
      let value = match[2]!;
      try {
        value = JSON.parse(`"${value}"`) as string;
      } catch {
        // as written
      }
      if (match[1] === 'ledger') tokens.push(...ledgerUrlSecrets(value));
      else (match[1] === 'token' ? tokens : match[1] === 'key' ? keys : webhooks).push(value);
    }
  }
  return { tokens, keys, webhooks };
}
