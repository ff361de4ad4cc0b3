/** Questions for a person at the keyboard; never asked in CI, with --no-input or without a terminal. */
import { type Context, inCI, type Prompter } from '../context.js';
import { interrupted } from '../errors.js';
import { colorLevel } from './output.js';

/** `globals.input` is false with --no-input. */
export function canPrompt(ctx: Context, globals: { input?: boolean | undefined }): boolean {
  return Boolean(ctx.stdin.isTTY && ctx.stdout.isTTY) && !inCI(ctx.env) && globals.input !== false;
}

function isPromptExit(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'CancelPromptError';
}

const SGR = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string) => text;

/**
 * Every part of inquirer's look, coloured or plain by lbrl's own rule (colorLevel: --no-color,
 * NO_COLOR, FORCE_COLOR, TERM=dumb, stderr a terminal), not by inquirer's, which reads the
 * process's environment alone and paints its `?` blue whatever the flags and the stream.
 * Answers and highlights in bold, not cyan, which fades on a light background.
 */
function promptTheme(colour: boolean) {
  const bold = colour ? SGR(1, 22) : plain;
  const dim = colour ? SGR(2, 22) : plain;
  const blue = colour ? SGR(34, 39) : plain;
  const green = colour ? SGR(32, 39) : plain;
  const red = colour ? SGR(31, 39) : plain;
  const yellow = colour ? SGR(33, 39) : plain;
  return {
    prefix: { idle: blue('?'), done: green('✔') },
    spinner: { interval: 80, frames: ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'].map(yellow) },
    style: {
      answer: bold,
      message: (text: string) => bold(text),
      error: (text: string) => red(`> ${text}`),
      defaultAnswer: (text: string) => `(${text})`,
      help: dim,
      highlight: bold,
      key: (text: string) => bold(`<${text}>`),
    },
  };
}

/**
 * @inquirer/prompts on the context's streams (on stderr); Ctrl-C becomes exit 130. `color` is false
 * with --no-color.
 */
export async function inquirerPrompter(ctx: Context, color = true): Promise<Prompter> {
  const { input, confirm, password } = await import('@inquirer/prompts');
  const theme = promptTheme(colorLevel(ctx.stderr, ctx.env, color) === 1);
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
