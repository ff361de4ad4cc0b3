import { randomUUID } from 'node:crypto';
import { parseBaseUrl, parseToken } from '../api/baseurl.js';
import { readInput } from '../context.js';
import { type ErrorType, invalidValue, LbrlError, usageError } from '../errors.js';
import type { Session } from '../session.js';
import { canPrompt, inquirerPrompter } from '../ui/prompts.js';

export interface LoginOptions {
  withToken?: boolean;
  verify?: boolean;
}

export function maskToken(token: string): string {
  return token.length >= 16 ? `${'*'.repeat(8)}${token.slice(-4)}` : '*'.repeat(8);
}

export async function login(opts: LoginOptions, session: Session): Promise<void> {
  const { ctx, printer: p } = session;
  const baseText = session.baseUrlSetting()?.value;
  if (baseText === undefined) {
    throw usageError('auth login needs the service URL: pass --base-url <url> (or set LBRL_BASE_URL)');
  }
  const base = parseBaseUrl(baseText);
  if (!base.ok) throw invalidValue('--base-url', baseText, base.expected);

  let token: string;
  if (opts.withToken) {
    token = (await readInput(ctx.stdin, 16 * 1024, 'the token')).replace(/\r?\n$/, '');
  } else {
    if (!canPrompt(ctx, session.globals)) {
      throw usageError(
        'no terminal to ask for the token: pipe it in with lbrl auth login --with-token < token.txt',
      );
    }
    const prompter = ctx.prompter ?? (await inquirerPrompter(ctx));
    token = await prompter.password({ message: `Access token for ${base.value}` });
  }
  const t = parseToken(token);
  if (!t.ok) throw usageError(`the token given is not usable: expected ${t.expected}`);
  p.addSecret(t.value);

  if (opts.verify !== false) {
    // A harmless request: a GET of an id that cannot exist. 404 means the token was accepted.
    const client = await session.client({
      mode: 'live',
      baseUrl: base.value,
      token: t.value,
      baseUrlFrom: '--base-url',
      tokenFrom: 'auth login',
    });
    try {
      await client.getDeposit(randomUUID());
    } catch (error) {
      if (!(error instanceof LbrlError)) throw error;
      // any answer past authentication means the token was accepted: 404 as expected, or a
      // service that answers a made-up id some other way (400, or an example deposit)
      const answered = ['not_found', 'validation', 'mismatch', 'contract'].includes(error.type);
      if (!answered) {
        if (error.type === 'auth') throw new LbrlError(`${error.message}; the token was not saved`, 'auth');
        throw new LbrlError(
          `could not check the token: ${error.message}; nothing was saved`,
          error.type,
          'pass --no-verify to save it without checking',
        );
      }
    }
  }
  await session.store.updateProfile(session.profileName, (profile) => {
    profile['base-url'] = base.value;
    profile.token = t.value;
  });
  p.info(`Logged in to ${base.value} (profile ${session.profileName}); token saved in ${session.store.file}`);
  if (ctx.env.LBRL_TOKEN !== undefined) p.warn('warning: LBRL_TOKEN is set and beats the saved token');
}

export function status(opts: { showToken?: boolean }, session: Session): void {
  const p = session.printer;
  let info: Record<string, unknown>;
  let failure: ErrorType | undefined;
  try {
    const target = session.target();
    if (target.mode === 'sandbox') {
      info = { profile: session.profileName, mode: 'sandbox', baseUrl: null, tokenSource: null, token: null };
    } else {
      info = {
        profile: session.profileName,
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
      profile: session.profileName,
      mode: 'incomplete',
      problem: error.message,
      baseUrl: session.baseUrlSetting()?.value ?? null,
      tokenSource: session.tokenSetting()?.from ?? null,
    };
  }
  info.network = session.setting('network');
  info.configFile = session.store.file;
  // --show-token is the one place the token is printed on purpose
  const write = (text: string) => (opts.showToken ? p.outUnredacted(text) : p.out(text));
  if (session.globals.json) write(JSON.stringify(info));
  else {
    const lines = [`Profile   ${info.profile}`, `Mode      ${info.mode}`];
    if (info.mode === 'sandbox')
      lines.push('          no base URL and no token: commands use the embedded sandbox (no real money)');
    if (info.baseUrl)
      lines.push(`Base URL  ${info.baseUrl}${info.baseUrlSource ? ` (from ${info.baseUrlSource})` : ''}`);
    if (info.tokenSource) lines.push(`Token     ${info.token ?? '(set)'} (from ${info.tokenSource})`);
    lines.push(`Network   ${info.network}`, `Config    ${info.configFile}`);
    if (info.problem) lines.push(`Problem   ${info.problem}`);
    write(lines.join('\n'));
  }
  if (failure) throw new LbrlError(String(info.problem), failure);
}

export async function logout(session: Session): Promise<void> {
  const { printer: p } = session;
  if (session.profile().token === undefined) {
    p.info(`profile ${session.profileName} has no saved token`);
  } else {
    await session.store.updateProfile(session.profileName, (profile) => {
      delete profile.token;
    });
    p.info(`Logged out: the token of profile ${session.profileName} was removed from ${session.store.file}`);
  }
  if (session.ctx.env.LBRL_TOKEN !== undefined) p.warn('warning: LBRL_TOKEN is still set in the environment');
}
