// The generated manifest (src/commands/manifest.ts) says exactly what the command modules define:
// a module whose definition changed without `npm run build` (or a hand edit of the manifest) fails here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CommandDef, entryOf, programEntry } from '../../src/commands/define.js';
import { MANIFEST } from '../../src/commands/manifest.js';

const DIR = path.resolve(__dirname, '../../src/commands');
const MODULES = fs
  .readdirSync(DIR)
  .filter(
    (f) =>
      f.endsWith('.ts') && /^export const definitions\b/m.test(fs.readFileSync(path.join(DIR, f), 'utf8')),
  );

async function defined(): Promise<{ file: string; def: CommandDef }[]> {
  const all: { file: string; def: CommandDef }[] = [];
  for (const file of MODULES) {
    const mod = (await import(path.join(DIR, file))) as { definitions: readonly CommandDef[] };
    for (const def of mod.definitions) all.push({ file, def });
  }
  return all.sort((a, b) => a.def.rank - b.def.rank);
}

describe('the command manifest', () => {
  it('holds the data of every definition of every command module, in rank order', async () => {
    const all = await defined();
    expect(all.length).toBeGreaterThan(20);
    const data = MANIFEST.map(({ load: _load, ...rest }) => rest);
    expect(data).toEqual(all.map(({ def }) => entryOf(def)));
  });

  it("loads each command's own module, and a group loads nothing", async () => {
    const all = await defined();
    for (const [i, entry] of MANIFEST.entries()) {
      const { file, def } = all[i]!;
      if (!def.run) {
        expect(entry.load, entry.path).toBeUndefined();
        continue;
      }
      const loaded = await entry.load!();
      expect(
        loaded.definitions.map((d) => d.path),
        `${entry.path} in ${file}`,
      ).toContain(entry.path);
      expect(loaded.definitions.find((d) => d.path === entry.path)?.run).toBe(def.run);
    }
  });

  it('each path once, the program first, every parent before its children', () => {
    const paths = MANIFEST.map((e) => e.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths[0]).toBe('');
    for (const [i, p] of paths.entries()) {
      const parent = p.split(' ').slice(0, -1).join(' ');
      if (p !== '') expect(paths.slice(0, i), p).toContain(parent);
    }
  });
});

describe('the program in the registry', () => {
  it('is found by its path, wherever the manifest puts it', () => {
    const program = MANIFEST.find((entry) => entry.path === '');
    expect(programEntry([...MANIFEST].reverse())).toBe(program);
    expect(programEntry(MANIFEST).flags.map((flag) => flag.flags)).toContain('--profile <name>');
    expect(() => programEntry(MANIFEST.filter((entry) => entry.path !== ''))).toThrow(/no program entry/);
  });
});
