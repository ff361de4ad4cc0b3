import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

/** A real pseudo-terminal: tmux runs the command, the test types and reads the screen. */
export class Tmux {
  private readonly socket = `lbrl-test-${randomBytes(4).toString('hex')}`;
  private readonly session = 'main';

  constructor(
    command: string,
    env: Record<string, string>,
    size = { width: 200, height: 120 },
    /** tmux's window-style (`bg=#ffffff,fg=#000000`): the colours it answers OSC 10/11 queries with */
    windowStyle?: string,
  ) {
    const exports = Object.entries(env)
      .map(([k, v]) => `export ${k}='${v.replace(/'/g, "'\\''")}';`)
      .join(' ');
    // keep the pane after the command ends, and print its exit status there
    const script = `${exports} ${command}; echo "[exit $?]"; sleep 600`;
    this.tmux(
      'new-session',
      '-d',
      '-s',
      this.session,
      '-x',
      String(size.width),
      '-y',
      String(size.height),
      script,
      ...(windowStyle ? [';', 'set-option', '-t', this.session, 'window-style', windowStyle] : []),
    );
  }

  private tmux(...args: string[]): string {
    // a server of its own, started with a clean environment (no CI, nothing of the test runner's)
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' },
    });
  }

  type(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.session, ...keys);
  }

  /** What the pane shows now, without its scrollback. */
  visible(): string {
    return this.tmux('capture-pane', '-p', '-t', this.session);
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', this.session, '-S', '-', '-E', '-');
  }

  /** The pane's title, as the program in it last set it (OSC 2). */
  title(): string {
    return this.tmux('display-message', '-p', '-t', this.session, '#{pane_title}').replace(/\n$/, '');
  }

  /** Wait until the program in the pane sets this title: a mark that it has done something. */
  async waitForTitle(title: string, timeoutMs = 15_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const t = this.title();
      if (t === title) return;
      if (Date.now() > end)
        throw new Error(`timed out waiting for the title ${title} (now ${t}); screen:\n${this.screen()}`);
      await delay(20);
    }
  }

  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const s = this.screen();
      if (pattern.test(s)) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${s}`);
      await delay(50);
    }
  }

  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}
