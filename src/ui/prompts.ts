/** Questions for a person at the keyboard; never asked in CI, with --no-input or without a terminal. */
import { type Context, inCI, type Prompter } from '../context.js';
import { interrupted } from '../errors.js';

/** `globals.input` is false with --no-input. */
export function canPrompt(ctx: Context, globals: { input?: boolean | undefined }): boolean {
  return Boolean(ctx.stdin.isTTY && ctx.stdout.isTTY) && !inCI(ctx.env) && globals.input !== false;
}

function isPromptExit(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'CancelPromptError';
}

/** @inquirer/prompts on the context's streams; Ctrl-C becomes exit 130. */
export async function inquirerPrompter(ctx: Context): Promise<Prompter> {
  const { input, confirm, password } = await import('@inquirer/prompts');
  // answers and highlights in bold, not inquirer's cyan, which fades on a light background
  const colour = Boolean(ctx.stderr.isTTY) && !ctx.env.NO_COLOR && ctx.env.TERM !== 'dumb';
  const bold = (text: string) => (colour ? `\u001b[1m${text}\u001b[22m` : text);
  const theme = { style: { answer: bold, highlight: bold, defaultAnswer: (text: string) => `(${text})` } };
  const streams = {
    input: ctx.stdin as NodeJS.ReadableStream,
    output: ctx.stderr as NodeJS.WritableStream,
    signal: ctx.signal,
    clearPromptOnDone: false,
  };
  const guard = async <T>(pending: Promise<T>): Promise<T> => {
    try {
      return await pending;
    } catch (error) {
      if (isPromptExit(error)) throw interrupted();
      throw error;
    }
  };
  return {
    input: (question) =>
      guard(
        input(
          {
            message: question.message,
            theme,
            ...(question.default !== undefined ? { default: question.default } : {}),
            validate: (v: string) => question.validate(v.trim()),
          },
          streams,
        ).then((v) => v.trim()),
      ),
    confirm: (question) =>
      guard(confirm({ message: question.message, default: question.default, theme }, streams)),
    password: (question) => guard(password({ message: question.message, mask: false, theme }, streams)),
  };
}
