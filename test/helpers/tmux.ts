import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

const TMUX_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' };
/** the tmux channel the pane signals when its command has ended */
const ENDED = 'ended';

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
    // keep the pane after the command ends, print its exit status there, and signal the end on a
    // tmux channel (remembered until someone waits on it), so a test can wait for it without polling
    const script = `${exports} ${command}; echo "[exit $?]"; tmux wait-for -S ${ENDED}; sleep 600`;
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
      env: TMUX_ENV,
    });
  }

  type(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.session, ...keys);
  }

  /** What the pane shows now, without its scrollback. */
  visible(): string {
    return this.tmux('capture-pane', '-p', '-t', this.session);
  }

  /** What the pane shows now, with its colours and attributes as escape sequences. */
  visibleWithEscapes(): string {
    return this.tmux('capture-pane', '-p', '-e', '-t', this.session);
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

  /**
   * Wait until the screen (with its scrollback, or only what is `visible`) matches, reading it every
   * 50 ms (each read is a tmux process); what matched is returned, read in that same moment.
   */
  async waitFor(pattern: RegExp, timeoutMs = 15_000, { visible = false } = {}): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const s = visible ? this.visible() : this.screen();
      if (pattern.test(s)) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${s}`);
      await delay(50);
    }
  }

  /** Wait until the command has ended, without reading the screen meanwhile; the screen then. */
  async ended(timeoutMs = 30_000): Promise<string> {
    const signalled = await new Promise<boolean>((resolve) => {
      execFile(
        'tmux',
        ['-L', this.socket, '-f', '/dev/null', 'wait-for', ENDED],
        { env: TMUX_ENV, timeout: timeoutMs },
        (error) => resolve(!error),
      );
    });
    if (!signalled) throw new Error(`timed out waiting for the command to end; screen:\n${this.screen()}`);
    // the channel can be heard before the pane's last output is read: that is a moment away
    return this.waitFor(/\[exit \d+\]/, 5_000);
  }

  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}
