/**
 * What `deposit list` loads: the times and colours it shows come from ui/zone-time.ts and
 * ui/status-color.ts, not from the rest of the display (ui/render.ts), whose deposit view loads
 * the Liquid address library (about 73 KB of code a list never runs); the settlement facts the
 * history's readers check come from domain/settlement-facts.ts, not from the answer models of
 * domain/deposit.ts and their schema library (about 52 KB).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, reachable } from '../helpers/imports.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** The files a module loads at once (dynamic imports are loaded only when run). */
function loadedAtStart(file: string): Map<string, string[]> {
  const graph = importGraph(SRC);
  for (const [from, edges] of graph)
    graph.set(
      from,
      edges.filter((edge) => edge.kind !== 'dynamic'),
    );
  return reachable(graph, path.join(SRC, file));
}

describe('deposit list loads only what it runs', () => {
  it('neither the deposit view, the address library nor the answer models (zod)', () => {
    const loaded = loadedAtStart('commands/deposit-list.ts');
    for (const heavy of ['ui/render.ts', 'domain/liquid/address.ts', 'domain/deposit.ts'])
      expect(loaded.get(path.join(SRC, heavy))?.map((f) => path.relative(SRC, f))).toBeUndefined();
    expect(loaded.has(path.join(SRC, 'ui/zone-time.ts'))).toBe(true);
  });
});
