/**
 * The files lbrl keeps on disk, tried as another user of the machine would: shared directories,
 * symbolic links, files of another owner, loose modes, ids in another case.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CreatedRecord } from '../../src/store/history-records.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { dayTradeInProcess, SERVICE } from '../helpers/day-trade.js';
import { ID, LQ, TOKEN } from '../helpers/fixtures.js';
import { createdRecord } from '../helpers/records-history.js';

const mode = (p: string) => fs.lstatSync(p).mode & 0o7777;
const OTHER = 65534; // nobody

/** the deposit getAnswer() describes, recorded by a create in the sandbox */
const created = (id: string, extra: Partial<CreatedRecord> = {}) =>
  createdRecord(id, {
    baseUrl: 'sandbox',
    at: '2026-11-22T10:00:00.000Z',
    amountInCents: 150000,
    destinationAddress: LQ,
    ...extra,
  });
const ndjson = (records: unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

describe('modes only on what lbrl creates', () => {
  it('a shared directory (1777) given as LBRL_CONFIG_DIR is never chmod-ed, by set or get', async () => {
    const dir = tempDir();
    fs.chmodSync(dir, 0o1777);
    const set = await runCli(['config', 'set', 'network', 'liquidtestnet'], {
      env: { LBRL_CONFIG_DIR: dir },
    });
    expect(set.code).toBe(0);
    expect(mode(dir)).toBe(0o1777);
    expect(mode(path.join(dir, 'config.json'))).toBe(0o600);
    const get = await runCli(['config', 'get', 'network'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(get.stdout).toBe('liquidtestnet\n');
    expect(mode(dir)).toBe(0o1777);
    // nothing left behind by the write
    expect(fs.readdirSync(dir).sort()).toEqual(['config.json']);
  });

  it('an existing directory of 0755 stays 0755, even with a loose config file in it', async () => {
    const dir = tempDir();
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, 'config.json'), '{"profiles":{"default":{"network":"liquid"}}}', {
      mode: 0o644,
    });
    fs.chmodSync(path.join(dir, 'config.json'), 0o644);
    const get = await runCli(['config', 'get', 'network'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(get.code).toBe(0);
    expect(mode(dir)).toBe(0o755);
    // the file is lbrl's own (a regular file of this user): set back to 0600, with a warning
    expect(mode(path.join(dir, 'config.json'))).toBe(0o600);
    expect(get.stderr).toContain('was readable by others; its permissions are now 0600');
  });

  it('a write cut by a kill -9 leaves its staging directory; the next write clears it', async () => {
    const dir = tempDir();
    const left = path.join(dir, '.config.json.writing-AbC123');
    fs.mkdirSync(left, { mode: 0o700 });
    fs.writeFileSync(path.join(left, 'config.json.tmp-1'), '{"profiles":');
    const set = await runCli(['config', 'set', 'network', 'liquid'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(set.code).toBe(0);
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
  });

  it('directories lbrl makes are 0700, its files 0600', async () => {
    const dir = path.join(tempDir(), 'a', 'b', 'lbrl');
    const set = await runCli(['config', 'set', 'network', 'liquid'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(set.code).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.dirname(dir))).toBe(0o700);
    expect(mode(path.join(dir, 'config.json'))).toBe(0o600);
  });
});

describe("a config file that is a link, or another user's, is refused", () => {
  let dir: string;
  let target: string;
  beforeEach(() => {
    dir = tempDir();
    target = path.join(tempDir(), 'elsewhere.json');
    fs.writeFileSync(target, '{"profiles":{"default":{"network":"liquidtestnet"}}}', { mode: 0o644 });
    fs.chmodSync(target, 0o644);
  });

  it.each([
    ['config get', ['config', 'get', 'network']],
    ['config set', ['config', 'set', 'network', 'liquid']],
    ['auth login', ['auth', 'login', '--base-url', 'https://pay.example.com', '--with-token', '--no-verify']],
  ])('a symbolic link: %s refuses, and neither follows, chmods nor writes through it', async (_n, args) => {
    fs.symlinkSync(target, path.join(dir, 'config.json'));
    const r = await runCli(args, { env: { LBRL_CONFIG_DIR: dir }, stdin: TOKEN });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^error: refusing .*config\.json: it is a symbolic link, and lbrl never follows a link for its config file; replace the link with the file itself/,
      ),
    ]);
    expect(fs.readFileSync(target, 'utf8')).toBe('{"profiles":{"default":{"network":"liquidtestnet"}}}');
    expect(mode(target)).toBe(0o644);
    expect(fs.lstatSync(path.join(dir, 'config.json')).isSymbolicLink()).toBe(true);
  });

  it('a dangling link is not created through either', async () => {
    const missing = path.join(tempDir(), 'not-there.json');
    fs.symlinkSync(missing, path.join(dir, 'config.json'));
    const r = await runCli(['config', 'set', 'network', 'liquid'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is a symbolic link');
    expect(fs.existsSync(missing)).toBe(false);
  });

  it.each([
    ['config get', ['config', 'get', 'network']],
    ['config set', ['config', 'set', 'network', 'liquid']],
    ['deposit create', ['deposit', 'create', '--amount', '1', '--to', LQ]],
  ])('a file of another user: %s refuses with what to do, and leaves it as it was', async (_n, args) => {
    const file = path.join(dir, 'config.json');
    fs.copyFileSync(target, file);
    fs.chmodSync(file, 0o644);
    fs.chownSync(file, OTHER, OTHER);
    const r = await runCli(args, { env: { LBRL_CONFIG_DIR: dir } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      `error: refusing ${file}: it belongs to another user (uid ${OTHER}, you are ${process.geteuid!()}), and lbrl uses only a config file you own; if it is yours, run chown ${process.geteuid!()} ${JSON.stringify(file)}; if not, remove it, or set LBRL_CONFIG_DIR to a directory of your own`,
    ]);
    const st = fs.statSync(file);
    expect([st.uid, st.mode & 0o777]).toEqual([OTHER, 0o644]);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"profiles":{"default":{"network":"liquidtestnet"}}}');
  });
});

describe('the history file', () => {
  it('a symbolic link is refused by list, and a create does not write through it', async () => {
    const dir = tempDir();
    const target = path.join(tempDir(), 'victim');
    fs.writeFileSync(target, 'precious\n');
    fs.symlinkSync(target, path.join(dir, 'history.ndjson'));
    const list = await runCli(['deposit', 'list'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(
      /^error: refusing .*history\.ndjson: it is a symbolic link, and lbrl never follows a link for its history; replace the link/,
    );
    const create = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--json'], {
      env: { LBRL_CONFIG_DIR: dir },
    });
    // refused before it is sent: no charge is made that the history could not hold
    expect(create.code).toBe(1);
    expect(create.stdout).toBe('');
    expect(JSON.parse(create.stderr).error.message).toContain('is a symbolic link');
    expect(fs.existsSync(path.join(dir, 'sandbox'))).toBe(false);
    expect(fs.readFileSync(target, 'utf8')).toBe('precious\n');
  });

  it('a file of another user is refused', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'history.ndjson');
    fs.writeFileSync(file, ndjson([created(ID)]), { mode: 0o600 });
    fs.chownSync(file, OTHER, OTHER);
    const list = await runCli(['deposit', 'list'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`it belongs to another user (uid ${OTHER}`);
    expect(list.stdout).toBe('');
  });

  it('an own history of mode 0644 is set to 0600 with a warning', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'history.ndjson');
    fs.writeFileSync(file, ndjson([created(ID)]));
    fs.chmodSync(file, 0o644);
    const list = await runCli(['deposit', 'list', '--json'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(1);
    expect(list.stderr).toContain(`warning: ${file} was readable by others; its permissions are now 0600`);
    expect(mode(file)).toBe(0o600);
  });

  it('a history made by a create is 0600', async () => {
    const dir = tempDir();
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], {
      env: { LBRL_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(0);
    expect(mode(path.join(dir, 'history.ndjson'))).toBe(0o600);
  });
});

describe('hard links and directories of others', () => {
  it.each([
    ['config.json', ['config', 'set', 'network', 'liquid']],
    ['history.ndjson', ['deposit', 'list']],
  ])(
    'a %s with another name elsewhere (a hard link) is refused, neither chmod-ed nor written',
    async (name, args) => {
      const dir = tempDir();
      const victim = path.join(tempDir(), 'victim');
      const bytes = name === 'config.json' ? '{"profiles":{}}' : ndjson([created(ID)]);
      fs.writeFileSync(victim, bytes);
      fs.chmodSync(victim, 0o644);
      fs.linkSync(victim, path.join(dir, name));
      const r = await runCli(args, { env: { LBRL_CONFIG_DIR: dir } });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(`^error: refusing .*${name.replace('.', '\\.')}: it has 2 names \\(hard links\\)`),
        ),
      ]);
      expect(fs.readFileSync(victim, 'utf8')).toBe(bytes);
      expect(mode(victim)).toBe(0o644);
    },
  );

  it('a create refuses a history that is a hard link before it is sent', async () => {
    const dir = tempDir();
    const victim = path.join(tempDir(), 'victim');
    fs.writeFileSync(victim, 'precious\n', { mode: 0o600 });
    fs.linkSync(victim, path.join(dir, 'history.ndjson'));
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--json'], {
      env: { LBRL_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.message).toContain('hard links');
    expect(fs.existsSync(path.join(dir, 'sandbox'))).toBe(false);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('a config directory of another user is not written in: they could replace what lbrl keeps there', async () => {
    const dir = tempDir();
    fs.chownSync(dir, OTHER, OTHER);
    const r = await runCli(['config', 'set', 'network', 'liquid'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: refusing .*: the directory belongs to another user \(uid 65534/),
    ]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('-q still says why a create was refused: a history that is a symbolic link', async () => {
    const dir = tempDir();
    const victim = path.join(tempDir(), 'victim');
    fs.writeFileSync(victim, 'precious\n', { mode: 0o600 });
    fs.symlinkSync(victim, path.join(dir, 'history.ndjson'));
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], {
      env: { LBRL_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: refusing .*history\.ndjson: it is a symbolic link/);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it("the sandbox's data directory of another user (or a link to one) is not used", async () => {
    const dir = tempDir();
    const theirs = tempDir();
    fs.chownSync(theirs, OTHER, OTHER);
    fs.symlinkSync(theirs, path.join(dir, 'sandbox'));
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--json'], {
      env: { LBRL_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/the directory belongs to another user \(uid 65534/);
    expect(fs.readdirSync(theirs)).toEqual([]);
  });

  it('a directory others can write without the sticky bit is not written in', async () => {
    const dir = tempDir();
    fs.chmodSync(dir, 0o777);
    const r = await runCli(['config', 'set', 'network', 'liquid'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: refusing .*: others can write the directory/);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(mode(dir)).toBe(0o777);
  });
});

describe('ids in one case', () => {
  it('a deposit recorded in upper case and updated in lower case is one deposit', async () => {
    // the history read as a file, the commands' work in process (runList, runWatch)
    const world = dayTradeInProcess();
    const upper = ID.toUpperCase();
    fs.writeFileSync(
      world.file,
      ndjson([
        created(upper, { baseUrl: SERVICE }),
        { v: 1, type: 'status', id: ID, status: 'FINALIZED', at: '2026-11-22T10:05:00.000Z' },
      ]),
      { mode: 0o600 },
    );
    const list = await world.list({}, { json: true });
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ id: ID, status: 'FINALIZED', statusAt: '2026-11-22T10:05:00.000Z' }),
    ]);
    const pending = await world.watch([], { pending: true });
    expect(pending.code).toBe(0);
    expect(pending.stderr).toContain('no pending deposits');
  });
});

describe('what is already known is not appended again', () => {
  it('list --refresh run many times over an unchanged deposit leaves the file as it was', async () => {
    // runList in process, a service that writes the id in upper case
    const world = dayTradeInProcess();
    world.statusOf.set(ID, 'WAITING_PAYMENT');
    world.answeredId = (id) => id.toUpperCase();
    fs.writeFileSync(world.file, ndjson([created(ID, { baseUrl: SERVICE })]), { mode: 0o600 });
    const before = fs.readFileSync(world.file, 'utf8');
    // within the profile's expire-after of its creation: nothing to expire either
    const now = Date.parse('2026-11-22T10:05:00Z');
    for (let i = 0; i < 3; i++) {
      const r = await world.list({ refresh: true }, { json: true, now });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ id: ID, status: 'WAITING_PAYMENT' })]);
    }
    expect(world.asked).toHaveLength(3);
    expect(fs.readFileSync(world.file, 'utf8')).toBe(before);
  });
});
