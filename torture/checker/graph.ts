// The dependency graph of a history (Adya): ww (T2 overwrote what T1 wrote), wr (T2 read what T1
// wrote), rw (T1 read a state that T2 then overwrote: an anti-dependency). A serializable history's
// graph has no cycle; the kinds of edge on a cycle name the anomaly.

export type Dep = 'ww' | 'wr' | 'rw';

export interface Step {
  from: number;
  to: number;
  dep: Dep;
  /** Why the edge exists, e.g. `x: 3 then 4`. */
  why: string;
}

export type CycleKind = 'G0' | 'G1c' | 'G-single' | 'G2';

export interface Cycle {
  kind: CycleKind;
  steps: Step[];
}

export class DepGraph {
  private readonly out = new Map<number, Map<number, Map<Dep, string>>>();

  add(from: number, to: number, dep: Dep, why: string): void {
    if (from === to) return;
    let targets = this.out.get(from);
    if (!targets) this.out.set(from, (targets = new Map()));
    let deps = targets.get(to);
    if (!deps) targets.set(to, (deps = new Map()));
    if (!deps.has(dep)) deps.set(dep, why);
  }

  edges(): Step[] {
    const all: Step[] = [];
    for (const [from, targets] of this.out) for (const [to, deps] of targets) for (const [dep, why] of deps) all.push({ from, to, dep, why });
    return all;
  }

  /**
   * Cycles, at most `limit` of each kind, each as short as a breadth-first search finds it: G0 (ww
   * only), G1c (ww and wr, at least one wr), G-single (exactly one rw), G2 (one rw or more and no
   * G-single through that edge).
   */
  cycles(limit = 3): Cycle[] {
    const found: Cycle[] = [];
    const seen = new Set<string>();
    const keep = (kind: CycleKind, steps: Step[] | undefined) => {
      if (!steps || found.filter((c) => c.kind === kind).length >= limit) return;
      const key = kind + ':' + [...new Set(steps.map((s) => s.from))].sort((a, b) => a - b).join(',');
      if (seen.has(key)) return;
      seen.add(key);
      found.push({ kind, steps });
    };
    const ww: Dep[] = ['ww'];
    const wwwr: Dep[] = ['ww', 'wr'];
    const any: Dep[] = ['ww', 'wr', 'rw'];
    const scc = this.components(any);
    for (const e of this.edges()) {
      if (scc.get(e.from) !== scc.get(e.to)) continue; // not on any cycle
      if (e.dep === 'ww') keep('G0', this.closing(e, ww));
      else if (e.dep === 'wr') keep('G1c', this.closing(e, wwwr));
      else {
        const single = this.closing(e, wwwr);
        if (single) keep('G-single', single);
        else keep('G2', this.closing(e, any));
      }
    }
    return found;
  }

  /** The edge `e` followed by a shortest path back from e.to to e.from over edges of `deps`. */
  private closing(e: Step, deps: Dep[]): Step[] | undefined {
    const reachedBy = new Map<number, Step>();
    const queue = [e.to];
    for (let head = 0; head < queue.length && !reachedBy.has(e.from); head++) {
      const node = queue[head];
      for (const [to, kinds] of this.out.get(node) ?? []) {
        if (to === e.to || reachedBy.has(to)) continue;
        const dep = deps.find((d) => kinds.has(d));
        if (!dep) continue;
        reachedBy.set(to, { from: node, to, dep, why: kinds.get(dep)! });
        queue.push(to);
      }
    }
    if (!reachedBy.has(e.from)) return undefined;
    const path: Step[] = [];
    for (let at = e.from; at !== e.to; at = path[0].from) path.unshift(reachedBy.get(at)!);
    return [e, ...path];
  }

  /** Strongly connected components over edges of `deps` (Tarjan, iterative): node → component. */
  private components(deps: Dep[]): Map<number, number> {
    const index = new Map<number, number>();
    const low = new Map<number, number>();
    const comp = new Map<number, number>();
    const stack: number[] = [];
    const onStack = new Set<number>();
    let next = 0;
    let comps = 0;
    const succ = (n: number) => [...(this.out.get(n) ?? [])].filter(([, k]) => deps.some((d) => k.has(d))).map(([t]) => t);
    for (const root of this.out.keys()) {
      if (index.has(root)) continue;
      const work: { node: number; succ: number[]; i: number }[] = [];
      const visit = (n: number) => {
        index.set(n, next);
        low.set(n, next++);
        stack.push(n);
        onStack.add(n);
        work.push({ node: n, succ: succ(n), i: 0 });
      };
      visit(root);
      while (work.length > 0) {
        const top = work[work.length - 1];
        if (top.i < top.succ.length) {
          const w = top.succ[top.i++];
          if (!index.has(w)) visit(w);
          else if (onStack.has(w)) low.set(top.node, Math.min(low.get(top.node)!, index.get(w)!));
          continue;
        }
        work.pop();
        if (work.length > 0) {
          const parent = work[work.length - 1].node;
          low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
        }
        if (low.get(top.node) === index.get(top.node)) {
          for (;;) {
            const w = stack.pop()!;
            onStack.delete(w);
            comp.set(w, comps);
            if (w === top.node) break;
          }
          comps++;
        }
      }
    }
    return comp;
  }
}
