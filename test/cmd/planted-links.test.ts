/**
 * A shared config directory (sticky, as /tmp; the README accepts one): another user plants the
 * directories lbrl writes in (`webhooks`, `sandbox`, `claims`) as symbolic links to a directory of
 * the victim's. Checked through the link, the target passes as the victim's own; lbrl must refuse
 * the link, naming it, and write nothing in the target. The tests run as root, so "another user"
 * is nobody (65534), who owns each planted link.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { LQ } from '../helpers/fixtures.js';

const OTHER = 65534; // nobody

/** A sticky shared directory holding a link another user made to the victim's own directory. */
function planted(name: string) {
  const shared = tempDir();
  fs.chmodSync(shared, 0o1777);
  const victim = tempDir();
  fs.writeFileSync(path.join(victim, 'default.ndjson'), 'precious\n', { mode: 0o600 });
  const link = path.join(shared, name);
  fs.symlinkSync(victim, link);
  fs.lchownSync(link, OTHER, OTHER);
  return { shared, victim, link, env: { LBRL_CONFIG_DIR: shared, HOME: tempDir() } };
}

const untouched = (victim: string) =>
  expect(fs.readdirSync(victim).map((f) => [f, fs.readFileSync(path.join(victim, f), 'utf8')])).toEqual([
    ['default.ndjson', 'precious\n'],
  ]);

describe('links planted in a shared config directory are never written through', () => {
  it('webhooks: listen refuses, naming the link (exit 1); nothing appended to the target', async () => {
    const { victim, link, env } = planted('webhooks');
    const r = await runCli(['listen', '--forward-to', 'http://127.0.0.1:1/hooks'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      `error: refusing ${link}: it is a symbolic link made by another user (uid ${OTHER}, you are ${process.geteuid!()}), and lbrl never writes through a link it did not make; remove it, or set LBRL_CONFIG_DIR to a directory of your own`,
    );
    untouched(victim);
  });

  it('sandbox: create refuses the planted data directory; nothing written in the target', async () => {
    const { victim, link, env } = planted('sandbox');
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--json'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`refusing ${link}: it is a symbolic link made by another user`);
    untouched(victim);
  });

  it('claims: a batch --resume refuses the planted claims directory; nothing written in the target', async () => {
    const { victim, shared, env } = planted('claims');
    const rows = path.join(tempDir(), 'rows.csv');
    fs.writeFileSync(rows, `amount,to\n1,${LQ}\n`);
    const r = await runCli(['deposit', 'create', '--from', rows, '--resume'], { env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`refusing ${path.join(shared, 'claims')}`);
    untouched(victim);
  });
});
