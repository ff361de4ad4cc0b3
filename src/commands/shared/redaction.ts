/** The program's output redacted from its first line (cli.ts calls it before parsing anything). */
import type { Context } from '../../context.js';
import { configDir, configSecrets } from '../../store/config.js';
import { redactingContext } from '../../ui/output.js';

/** The context with stdout and stderr keeping out every secret of the config file and LBRL_TOKEN. */
export function redactedFromTheStart(ctx: Context): Context {
  return redactingContext(ctx, configSecrets(configDir(ctx.env, ctx.homedir)));
}
