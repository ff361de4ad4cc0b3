import { randomUUID } from 'node:crypto';
import { parseBaseUrl, parseToken, withoutCredentials } from '../api/baseurl.js';
import type { Answer } from '../api/client.js';
import { type Context, type Prompter, readInput } from '../context.js';
import type { Target } from '../deposits/ports.js';
import { checkDeposit } from '../domain/deposit-rules.js';
import { MIN_FRAGMENT_SECRET } from '../domain/text/redact.js';
import { terminalSafe } from '../domain/text/safe-text.js';
import { type ErrorType, invalidValue, LbrlError, usageError } from '../errors.js';
import { type Factory, targetInputsOf } from '../factory/factory.js';
import { settingOf } from '../factory/settings.js';
import { baseUrlSource, tokenSource } from '../factory/target.js';
import type { Profile } from '../store/config.js';
import type { Printer } from '../ui/output.js';
import { canPrompt, inquirerPrompter } from '../ui/prompts.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';

const LOGIN_FLAGS = [
  { flags: '--with-token', help: 'read the token from stdin' },
  { flags: '--no-verify', help: 'save without checking the token against the service' },
] as const satisfies readonly FlagDef[];

const STATUS_FLAGS = [
  { flags: '--show-token', help: 'print the token itself' },
] as const satisfies readonly FlagDef[];

export type LoginOptions = OptionsOf<typeof LOGIN_FLAGS>;

/** The Deposit service's error body, as the interface's OpenAPI describes it. */
function serviceError(json: unknown): { code: string; message: string } | undefined {
  const problem = (json as { error?: unknown } | null)?.error as
    | { code?: unknown; message?: unknown }
    | undefined;
  if (
    problem &&
    typeof problem === 'object' &&
    typeof problem.code === 'string' &&
    typeof problem.message === 'string'
  )
    return { code: problem.code, message: problem.message };
  return undefined;
}

/**
 * Who answered a GET of a made-up deposit id: the Deposit service accepting the token (its
 * `not_found` or validation error, or a deposit), refusing it (401/403), or something else,
 * described for the message (an HTML page, a 200 that is not a deposit, a 400 of another shape).
 */
export function judgeProbe(answer: Answer): 'accepted' | 'refused' | string {
  const { status, contentType, text } = answer;
  if (status === 401 || status === 403) return 'refused';
  const isJson = contentType !== undefined && /^application\/([\w.+-]*\+)?json\b/i.test(contentType.trim());
  let json: unknown;
  try {
    json = isJson ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const what = () =>
    !isJson
      ? `${status} with ${contentType ? `content-type ${terminalSafe(JSON.stringify(contentType))}` : 'no content-type'}`
      : answer.notUtf8 !== undefined
        ? `${status} with a body that is not UTF-8 (${answer.notUtf8})`
        : json === undefined
          ? `${status} with a body that is not JSON`
          : `${status} with a JSON body of another shape`;
  if (json === undefined) return what();
  if (status >= 200 && status < 300)
    return checkDeposit(json, { kind: 'get' }).length === 0 ? 'accepted' : what();
  const error = serviceError(json);
  if (status === 404 && error?.code === 'not_found') return 'accepted';
  if (
    (status === 400 || status === 422) &&
    (error?.code === 'validation_error' || error?.code === 'bad_request')
  )
    return 'accepted';
  return error ? `${status} (${JSON.stringify(error.code)})` : what();
}

export function maskToken(token: string): string {
  return token.length >= 16 ? `${'*'.repeat(8)}${token.slice(-4)}` : '*'.repeat(8);
}

/** What `auth login` sends its one harmless request with: a client for the base URL and token given. */
export interface ProbeClient {
  probeDeposit(id: string): Promise<Answer>;
}

/**
 * All `auth login` needs (gh's Options struct): the factory's getters fill it in (`loginOptionsOf`); a test
 * hands plain values, a prompter, a fake client and a config store in a temporary directory.
 */
export interface LoginCommandOptions {
  flags: LoginOptions;
  printer: Printer;
  /** stdin (--with-token) and the environment (LBRL_TOKEN) */
  ctx: Pick<Context, 'stdin' | 'env'>;
  /** the base URL as given (--base-url, LBRL_BASE_URL, the profile), unchecked */
  baseUrlSetting(): { value: string } | undefined;
  /** someone to ask for the token, when a person is at a terminal (and --no-input is not given) */
  prompter(): Promise<Prompter | undefined>;
  /** a client for the service and token given, for the check */
  client(target: Extract<Target, { mode: 'live' }>): Promise<ProbeClient>;
  profileName: string;
  /** where the profiles are kept */
  configFile: string;
  /** change this profile in the config file (under its lock, written whole) */
  updateProfile(change: (profile: Profile) => void): Promise<void>;
}

/** The factory's getters, narrowed to what `auth login` uses (the profile may be new). */
export function loginOptionsOf(flags: LoginOptions, factory: Factory): LoginCommandOptions {
  return {
    flags,
    printer: factory.printer,
    ctx: factory.ctx,
    baseUrlSetting: () => baseUrlSource(targetInputsOf(factory)),
    async prompter() {
      if (!canPrompt(factory.ctx, factory.globals)) return undefined;
      return factory.ctx.prompter ?? (await inquirerPrompter(factory.ctx, factory.globals.color !== false));
    },
    client: (target) => factory.client(target, { ledger: false }),
    profileName: factory.profileName,
    configFile: factory.config().file,
    updateProfile: (change) => factory.config().updateProfile(factory.profileName, change),
  };
}

/** Check the base URL and the token (with a harmless request, unless --no-verify), then save both. */
export async function runLogin(options: LoginCommandOptions): Promise<void> {
  const { ctx, printer, flags: opts } = options;
  const baseText = options.baseUrlSetting()?.value;
  if (baseText === undefined) {
    throw usageError('auth login needs the service URL: pass --base-url <url> (or set LBRL_BASE_URL)');
  }
  const base = parseBaseUrl(baseText);
  if (!base.ok) throw invalidValue('--base-url', withoutCredentials(baseText), base.expected);

  let token: string;
  if (opts.withToken) {
    token = (await readInput(ctx.stdin, 16 * 1024, 'the token')).replace(/\r?\n$/, '');
  } else {
    const prompter = await options.prompter();
    if (!prompter) {
      throw usageError(
        'no terminal to ask for the token: pipe it in with lbrl auth login --with-token < token.txt',
      );
    }
    token = await prompter.password({ message: `Access token for ${base.value}` });
  }
  const parsed = parseToken(token);
  if (!parsed.ok)
    throw usageError(`the token given is not usable: expected ${parsed.expected}; nothing was saved`);
  if (parsed.value.length < MIN_FRAGMENT_SECRET) {
    // a short token cannot be told apart from ordinary text, so it cannot be kept out of output
    throw usageError(
      `the token given is ${parsed.value.length} character(s): lbrl needs at least ${MIN_FRAGMENT_SECRET} to keep it out of everything it prints; nothing was saved`,
    );
  }
  printer.addSecret(parsed.value);

  if (opts.verify !== false) {
    const client = await options.client({
      mode: 'live',
      baseUrl: base.value,
      token: parsed.value,
      baseUrlFrom: '--base-url',
      tokenFrom: 'auth login',
    });
    // A harmless request: a GET of an id that cannot exist
    const answer = await client.probeDeposit(randomUUID());
    const { serviceMessage } = await import('../api/classify.js');
    const verdict = judgeProbe(answer);
    if (verdict === 'refused') {
      throw new LbrlError(
        `the service refused the token (${answer.status}): ${serviceMessage(answer.text, answer.notUtf8) || 'no reason given'}; the token was not saved`,
        'auth',
      );
    }
    if (answer.status === 429 || answer.status >= 500) {
      throw new LbrlError(
        `could not verify the token: the service answered ${answer.status}: ${serviceMessage(answer.text, answer.notUtf8) || 'no reason given'}; nothing was saved`,
        answer.status === 429 ? 'rate_limited' : 'service',
        'try again later, or pass --no-verify to save the token without checking',
      );
    }
    if (verdict !== 'accepted') {
      throw new LbrlError(
        `could not verify the token: ${base.value} answered ${verdict}, not what the Deposit service answers to a token it accepts; nothing was saved`,
        'contract',
        'check the base URL; pass --no-verify to save the token without checking',
      );
    }
  }
  await options.updateProfile((profile) => {
    profile['base-url'] = base.value;
    profile.token = parsed.value;
  });
  printer.info(
    `Logged in to ${base.value} (profile ${options.profileName}); token saved in ${options.configFile}`,
  );
  if (ctx.env.LBRL_TOKEN !== undefined) printer.warn('warning: LBRL_TOKEN is set and beats the saved token');
}

export type StatusFlags = OptionsOf<typeof STATUS_FLAGS>;

/** All `auth status` needs (gh's Options struct): the factory's getters fill it in; a test hands plain values. */
export interface StatusCommandOptions {
  flags: StatusFlags;
  printer: Printer;
  json: boolean;
  profileName: string;
  /** where the profiles are kept */
  configFile: string;
  /** the network setting in force */
  network: string | undefined;
  /** the service the commands would use; throws (an LbrlError) when it is configured by half */
  target(): Target;
  /** the base URL and the token as given, for a target configured by half */
  baseUrlSetting(): { value: string } | undefined;
  tokenSetting(): { from: string } | undefined;
}

/** The factory's getters, narrowed to what `auth status` uses. */
export function statusOptionsOf(flags: StatusFlags, factory: Factory): StatusCommandOptions {
  return {
    flags,
    printer: factory.printer,
    json: factory.globals.json === true,
    profileName: factory.profileName,
    configFile: factory.config().file,
    network: settingOf(factory.profile(), 'network'),
    target: () => factory.target(),
    baseUrlSetting: () => baseUrlSource(targetInputsOf(factory)),
    tokenSetting: () => tokenSource(targetInputsOf(factory)),
  };
}

/** The profile, its mode, base URL and token source; exit with the problem of a half-configured one. */
export function runStatus(options: StatusCommandOptions): void {
  const { flags: opts, printer } = options;
  let info: Record<string, unknown>;
  let failure: ErrorType | undefined;
  try {
    const target = options.target();
    if (target.mode === 'sandbox') {
      info = { profile: options.profileName, mode: 'sandbox', baseUrl: null, tokenSource: null, token: null };
    } else {
      info = {
        profile: options.profileName,
        mode: 'live',
        baseUrl: target.baseUrl,
        baseUrlSource: target.baseUrlFrom,
        tokenSource: target.tokenFrom,
        token: opts.showToken ? target.token : maskToken(target.token),
      };
    }
  } catch (error) {
    if (!(error instanceof LbrlError)) throw error;
    failure = error.type;
    info = {
      profile: options.profileName,
      mode: 'incomplete',
      problem: error.message,
      baseUrl: options.baseUrlSetting()?.value ?? null,
      tokenSource: options.tokenSetting()?.from ?? null,
    };
  }
  info.network = options.network;
  info.configFile = options.configFile;
  // --show-token is the one place the token is printed on purpose
  const write = (text: string) => (opts.showToken ? printer.outUnredacted(text) : printer.out(text));
  if (options.json) write(JSON.stringify(info));
  else {
    const lines = [`Profile   ${info.profile}`, `Mode      ${info.mode}`];
    if (info.mode === 'sandbox')
      lines.push('          no base URL and no token: commands use the embedded sandbox (no real money)');
    // values read from the file or the environment are shown, never acted on by the terminal
    if (info.baseUrl)
      lines.push(
        `Base URL  ${terminalSafe(String(info.baseUrl))}${info.baseUrlSource ? ` (from ${info.baseUrlSource})` : ''}`,
      );
    if (info.tokenSource) lines.push(`Token     ${info.token ?? '(set)'} (from ${info.tokenSource})`);
    lines.push(
      `Network   ${terminalSafe(String(info.network))}`,
      `Config    ${terminalSafe(String(info.configFile))}`,
    );
    if (info.problem) lines.push(`Problem   ${info.problem}`);
    write(lines.join('\n'));
  }
  if (failure) throw new LbrlError(String(info.problem), failure);
}

/** All `auth logout` needs (gh's Options struct): the factory's getters fill it in (`logoutOptionsOf`). */
export interface LogoutCommandOptions {
  printer: Printer;
  /** the environment (LBRL_TOKEN) */
  ctx: Pick<Context, 'env'>;
  profileName: string;
  /** where the profiles are kept */
  configFile: string;
  /** what the profile is when it is not an object of settings (a list, a string), else undefined */
  damagedProfile(): string | undefined;
  /** remove that damaged profile whole from the config file; false when it was not removed */
  removeDamagedProfile(): Promise<boolean>;
  /** the profile's saved token as the file has it, unchecked: logout repairs a damaged one too */
  savedToken(): unknown;
  /** change this profile in the config file (under its lock, written whole) */
  updateProfile(change: (profile: Profile) => void): Promise<void>;
}

/** The factory's getters, narrowed to what `auth logout` uses. */
export function logoutOptionsOf(factory: Factory): LogoutCommandOptions {
  return {
    printer: factory.printer,
    ctx: factory.ctx,
    profileName: factory.profileName,
    configFile: factory.config().file,
    // the profile read unchecked (profileForRepair), its secrets kept out of output
    damagedProfile: () => factory.config().damagedProfile(factory.profileName),
    removeDamagedProfile: () => factory.config().removeDamagedProfile(factory.profileName),
    savedToken: () => factory.repairProfile().token,
    updateProfile: (change) => factory.config().updateProfile(factory.profileName, change),
  };
}

/** Remove the profile's token, if it has one; a damaged profile, whole. */
export async function runLogout(options: LogoutCommandOptions): Promise<void> {
  const { printer } = options;
  // a profile that is not an object of settings (a list, a string) is removed whole, its token with it
  const damaged = options.damagedProfile();
  if (damaged && (await options.removeDamagedProfile())) {
    printer.info(
      `Logged out: profile ${options.profileName} in ${options.configFile} was damaged (${damaged}, not an object of settings) and was removed whole, its token with it; set its settings again with lbrl config set`,
    );
  } else if (options.savedToken() === undefined) {
    printer.info(`profile ${options.profileName} has no saved token`);
  } else {
    await options.updateProfile((profile) => {
      delete profile.token;
    });
    printer.info(
      `Logged out: the token of profile ${options.profileName} was removed from ${options.configFile}`,
    );
  }
  if (options.ctx.env.LBRL_TOKEN !== undefined)
    printer.warn('warning: LBRL_TOKEN is still set in the environment');
}

export const AUTH_LOGIN = command({
  rank: 100,
  path: 'auth login',
  description: 'save a base URL and token in the profile (checked with a harmless request)',
  long: `The token is read with hidden input on a terminal, or from stdin with \`--with-token\`, and checked with a GET of a random deposit id unless \`--no-verify\`: it is saved only when the answer is recognisably the Deposit service's. A token shorter than 16 characters, or with spaces, control or non-ASCII characters, is refused before anything is sent or saved.`,
  flags: LOGIN_FLAGS,
  examples: [
    'lbrl auth login --base-url https://pay.example.com',
    'printf %s "$TOKEN" | lbrl auth login --base-url https://pay.example.com --with-token --profile work',
  ],
  async run({ opts, factory }) {
    return runLogin(loginOptionsOf(opts, await factory({ creatingProfile: true })));
  },
});

export const AUTH_STATUS = command({
  rank: 110,
  path: 'auth status',
  description: 'show the profile, mode, base URL and where the token comes from',
  long: `The token is shown masked (its last four characters); \`--show-token\` is the only way lbrl ever prints it.`,
  flags: STATUS_FLAGS,
  examples: ['lbrl auth status', 'lbrl auth status --json | jq -r .mode'],
  async run({ opts, factory }) {
    return runStatus(statusOptionsOf(opts, await factory()));
  },
});

export const AUTH_LOGOUT = command({
  rank: 120,
  path: 'auth logout',
  description: "remove the profile's token",
  long: `The base URL is kept, so the next command fails clearly instead of silently using the sandbox. A profile damaged beyond reading is removed whole, the other profiles untouched.`,
  flags: [],
  examples: ['lbrl auth logout --profile work'],
  async run({ factory }) {
    return runLogout(logoutOptionsOf(await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(AUTH_LOGIN, AUTH_STATUS, AUTH_LOGOUT);
