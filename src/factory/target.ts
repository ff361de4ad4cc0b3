/**
 * Which profile, which service and which ledger a command talks to: pure functions of the flags,
 * the environment and the profile's settings (read when needed, and only then), no I/O. The
 * factory (factory/factory.ts) calls them with the real config; a test with plain values.
 */
import { parseBaseUrl, parseToken, withoutCredentials } from '../api/baseurl.js';
import type { Target } from '../deposits/ports.js';
import { type LedgerSetting, readLedgerSetting, shownLedgerUrl } from '../domain/ledger-url.js';
import { MIN_FRAGMENT_SECRET } from '../domain/text/redact.js';
import { parseProfileName } from '../domain/values.js';
import { invalidValue, usageError } from '../errors.js';

/** The program's flags that decide where a command goes. */
export interface TargetFlags {
  profile?: string | undefined;
  baseUrl?: string | undefined;
}

/** What target resolution reads. */
export interface TargetInputs {
  flags: TargetFlags;
  env: Record<string, string | undefined>;
  profileName: string;
  /** the profile's saved settings, unchecked; called only when a flag or variable does not decide first */
  saved(): { 'base-url'?: string | undefined; token?: string | undefined };
  /** the config file, named as where a saved token came from */
  configFile: string;
}

/** A value as given, unchecked, and where it came from. */
export interface Sourced {
  value: string;
  from: string;
}

/** The profile's name: --profile, LBRL_PROFILE, else "default"; checked. */
export function profileNameOf(
  flags: TargetFlags,
  env: Record<string, string | undefined>,
): { name: string; from: string } {
  const text = flags.profile ?? env.LBRL_PROFILE ?? 'default';
  const from = flags.profile !== undefined ? '--profile' : 'LBRL_PROFILE';
  const parsed = parseProfileName(text);
  if (!parsed.ok) throw invalidValue(from, text, parsed.expected);
  return { name: parsed.value, from };
}

/** The base URL as given, unchecked, and where it came from: --base-url, LBRL_BASE_URL, the profile. */
export function baseUrlSource(inputs: TargetInputs): Sourced | undefined {
  if (inputs.flags.baseUrl !== undefined) return { value: inputs.flags.baseUrl, from: '--base-url' };
  if (inputs.env.LBRL_BASE_URL !== undefined)
    return { value: inputs.env.LBRL_BASE_URL, from: 'LBRL_BASE_URL' };
  const saved = inputs.saved()['base-url'];
  return saved !== undefined ? { value: saved, from: `profile ${inputs.profileName}` } : undefined;
}

/** The token as given, unchecked, and where it came from: LBRL_TOKEN, then the config file. */
export function tokenSource(inputs: TargetInputs): Sourced | undefined {
  if (inputs.env.LBRL_TOKEN !== undefined) return { value: inputs.env.LBRL_TOKEN, from: 'LBRL_TOKEN' };
  const saved = inputs.saved().token;
  return saved !== undefined ? { value: saved, from: inputs.configFile } : undefined;
}

/** Live when a base URL and a token are both known; sandbox when neither is; anything else is refused. */
export function resolveTarget(inputs: TargetInputs): Target {
  const base = baseUrlSource(inputs);
  const baseUrlFrom = base?.from ?? '';
  const tokenGiven = tokenSource(inputs);
  const token = tokenGiven?.value;
  const tokenFrom = tokenGiven?.from ?? '';
  const baseUrl = base === undefined ? undefined : checkedBaseUrl(base, inputs.profileName);
  if (token !== undefined) checkToken(token, tokenFrom);
  if (baseUrl !== undefined && token !== undefined)
    return { mode: 'live', baseUrl, token, baseUrlFrom, tokenFrom };
  if (baseUrl === undefined && token === undefined) return { mode: 'sandbox' };
  if (token !== undefined) {
    throw usageError(
      `a token is set (${tokenFrom === 'LBRL_TOKEN' ? 'LBRL_TOKEN' : `profile ${inputs.profileName}`}) but no base URL: pass --base-url, set LBRL_BASE_URL, or run lbrl auth login --base-url <url>`,
    );
  }
  throw usageError(
    `a base URL is set (${baseUrlFrom}) but no token: set LBRL_TOKEN or run lbrl auth login; for the sandbox, unset the base URL`,
  );
}

function checkedBaseUrl(base: Sourced, profileName: string): string {
  const parsed = parseBaseUrl(base.value);
  if (!parsed.ok)
    throw invalidValue(
      base.from === `profile ${profileName}` ? 'base-url in the config' : base.from,
      withoutCredentials(base.value),
      parsed.expected,
    );
  return parsed.value;
}

function checkToken(token: string, from: string): void {
  const parsed = parseToken(token);
  if (!parsed.ok) throw usageError(`invalid token from ${from}: expected ${parsed.expected}`);
  // a short token cannot be told apart from ordinary text, so it cannot be kept out of output
  if (token.length < MIN_FRAGMENT_SECRET)
    throw usageError(
      `invalid token from ${from}: it is ${token.length} character(s); lbrl needs at least ${MIN_FRAGMENT_SECRET} to keep it out of everything it prints`,
    );
}

/** The tokens `lbrl sandbox serve` makes (newSandboxToken in sandbox/store.ts). */
const STANDING_SANDBOX_TOKEN = /^sbx_[0-9a-f]{32}$/;

/** How a deposit is shown: the embedded sandbox's as no real money; decided by the target alone. */
export function renderModeOf(target: Target): { sandbox: boolean; serviceUrl?: string } {
  if (target.mode === 'sandbox') return { sandbox: true };
  // a standing sandbox (lbrl sandbox serve) used as a profile: known by the token the user holds,
  // which it made (sbx_ and 32 hex digits, sandbox/store.ts), never by what an answer says
  return STANDING_SANDBOX_TOKEN.test(target.token)
    ? { sandbox: false, serviceUrl: target.baseUrl }
    : { sandbox: false };
}

/** The ledger setting as given, unchecked, and where it came from: LBRL_LEDGER_URL, the profile, the default. */
export function ledgerSource(
  env: Record<string, string | undefined>,
  saved: () => string | undefined,
): Sourced {
  const fromEnv = env.LBRL_LEDGER_URL;
  if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, from: 'LBRL_LEDGER_URL' };
  const value = saved();
  return value !== undefined ? { value, from: 'ledger in the config' } : { value: 'file', from: 'default' };
}

/** Where the ledger lives, checked as it is read (a hand-edited file or a variable is checked too). */
export function resolveLedger(
  env: Record<string, string | undefined>,
  saved: () => string | undefined,
): LedgerSetting {
  const { value, from } = ledgerSource(env, saved);
  const parsed = readLedgerSetting(value);
  if (!parsed.ok) throw invalidValue(from, shownLedgerUrl(value), parsed.expected);
  return parsed.value;
}
