import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyEngineGraph, EngineGraphEditor } from './graph';
import { bufferById, edgeById, registerSurface, surfaceById, surfacesWithout } from './surfaces';

/** a graph with `n` data edges, each given its surface `tsd-i` one after another */
function graphWithSurfaces(n: number) {
  const g = emptyEngineGraph(1);
  const ed = new EngineGraphEditor(g);
  for (let i = 0; i < n; i++) ed.addDataEdge(null, null, { name: `t${i}`, dims: { n: 1, c: i + 1, h: 1, w: 1 }, type: 'IO', dataFormat: 'NCHW', channelScales: [] });
  return g;
}

describe('surfaceById / bufferById (the id index over a graph list)', () => {
  it('finds surfaces registered one by one while looking each up (the index grows with the list)', () => {
    const g = graphWithSurfaces(40);
    const bad: string[] = [];
    for (const e of g.edges) {
      registerSurface(g, e);
      const s = surfaceById(g, e.surface!);
      if (s.edge !== e.id) bad.push(`${e.surface} -> edge ${s.edge}, not ${e.id}`);
      // every earlier surface is still found, and is the list's own object
      for (const t of g.surfaces) if (surfaceById(g, t.id) !== t) bad.push(`${t.id} not the list's object`);
    }
    expect(bad).toEqual([]);
    expect(g.surfaces.map((s) => s.dims.c)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('sees a list replaced by a shorter one (a removal) and a list edited in place', () => {
    const g = graphWithSurfaces(5);
    for (const e of g.edges) registerSurface(g, e);
    expect(surfaceById(g, 'tsd-4').edge).toBe(g.edges[4]!.id);
    g.surfaces = g.surfaces.filter((s) => s.id !== 'tsd-2');
    expect(() => surfaceById(g, 'tsd-2')).toThrow(/no surface tsd-2/);
    expect(surfaceById(g, 'tsd-3')).toBe(g.surfaces[2]);
    // a list shortened in place, then grown back to a longer length with other surfaces
    const kept = g.surfaces[0]!;
    g.surfaces.length = 1;
    expect(() => surfaceById(g, 'tsd-1')).toThrow(/no surface tsd-1/);
    g.surfaces.push({ ...kept, id: 'tsd-9' }, { ...kept, id: 'tsd-10' });
    expect(surfaceById(g, 'tsd-10').id).toBe('tsd-10');
    expect(() => surfaceById(g, 'tsd-3')).toThrow(/no surface tsd-3/);
    // an id changed in place: found under its new id
    g.surfaces[1]!.id = 'tsd-renamed';
    expect(surfaceById(g, 'tsd-renamed')).toBe(g.surfaces[1]);
  });

  it('any mix of registrations, removals (kept indexed or a plain new list), in-place edits and lookups finds what a scan of the list finds', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('register' as const) }),
      fc.record({ kind: fc.constantFrom('without' as const, 'filter' as const, 'splice' as const, 'rename' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('lookup' as const), id: fc.nat({ max: 30 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const g = graphWithSurfaces(30);
        let next = 0;
        const bad: string[] = [];
        const check = (id: string) => {
          const want = g.surfaces.find((x) => x.id === id);
          let got: unknown;
          try {
            got = surfaceById(g, id);
          } catch {
            got = undefined;
          }
          if (got !== want) bad.push(`${id}: ${(got as { id?: string } | undefined)?.id} != ${want?.id}`);
        };
        for (const o of ops) {
          const list = g.surfaces;
          const victim = list.length ? list[('at' in o ? o.at : 0) % list.length]! : null;
          if (o.kind === 'register' && next < g.edges.length) registerSurface(g, g.edges[next++]!);
          else if (o.kind === 'without' && victim) g.surfaces = surfacesWithout(g, victim.id);
          else if (o.kind === 'filter' && victim) g.surfaces = list.filter((x) => x !== victim);
          else if (o.kind === 'splice' && victim) list.splice(list.indexOf(victim), 1);
          else if (o.kind === 'rename' && victim) victim.id = `renamed-${victim.id}`;
          else if (o.kind === 'lookup') check(`tsd-${o.id}`);
          if (victim) check(victim.id);
        }
        for (const x of [...g.surfaces]) check(x.id);
        expect(bad).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('indexes buffers pushed after a lookup', () => {
    const g = emptyEngineGraph(1);
    expect(bufferById(g, 'tb-0')).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      g.buffers.push({ id: `tb-${i}`, size: i * 64, surfaces: [], location: 'UNKNOWN', placement: [] });
      expect(bufferById(g, `tb-${i}`)?.size).toBe(i * 64);
    }
  });

  it('edgeById: edges added through an editor and edges deleted (a new list) are seen', () => {
    const g = graphWithSurfaces(3);
    const ed = new EngineGraphEditor(g);
    expect(edgeById(g, 'e-1')).toBe(g.edges[1]);
    const added = ed.addDataEdge(null, null, null);
    expect(edgeById(g, added.id)).toBe(added);
    ed.deleteEdge(g.edges[0]!);
    expect(edgeById(g, 'e-0')).toBeUndefined();
    expect(edgeById(g, 'e-2')).toBe(g.edges[1]);
  });
});
