// A small SVG line chart (no chart library: the bundle stays small and the CSP strict): lines of
// points over an even time axis, a gap where a value is null, each point a circle with its value in
// a tooltip. Colours come from app.css by series class (inline styles are not allowed by the CSP).

const SVG = 'http://www.w3.org/2000/svg';

export interface Series {
  name: string;
  /** CSS class of its line and points. */
  className: string;
  values: readonly (number | null)[];
}

export interface ChartSpec {
  id: string;
  title: string;
  unit: string;
  /** Label of each x position (e.g. a time), as many as each series has values. */
  labels: readonly string[];
  series: readonly Series[];
  width?: number;
  height?: number;
}

function svg(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** A number short enough for an axis: 0.25, 3.5, 120, 1.2k. */
export function axisNumber(n: number): string {
  if (n >= 1000) return `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}k`;
  if (n >= 10 || Number.isInteger(n)) return String(Math.round(n));
  return n.toFixed(n >= 1 ? 1 : 2);
}

export function lineChart(spec: ChartSpec): SVGElement {
  const width = spec.width ?? 520;
  const height = spec.height ?? 160;
  const pad = { left: 44, right: 8, top: 20, bottom: 20 };
  const innerW = width - pad.left - pad.right;
  const innerH = height - pad.top - pad.bottom;
  const n = spec.labels.length;
  const all = spec.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = Math.max(1e-9, ...all) * 1.1;
  const x = (i: number) => pad.left + (n <= 1 ? innerW / 2 : (i / (n - 1)) * innerW);
  const y = (v: number) => pad.top + innerH - (v / max) * innerH;
  const root = svg('svg', { id: spec.id, class: 'chart', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': spec.title });
  root.append(
    svg('text', { x: pad.left, y: 13, class: 'chart-title' }, `${spec.title} (${spec.unit})`),
    svg('line', { x1: pad.left, y1: pad.top + innerH, x2: width - pad.right, y2: pad.top + innerH, class: 'axis' }),
    svg('line', { x1: pad.left, y1: pad.top, x2: pad.left, y2: pad.top + innerH, class: 'axis' }),
    svg('text', { x: pad.left - 4, y: pad.top + 4, class: 'tick', 'text-anchor': 'end' }, axisNumber(max)),
    svg('text', { x: pad.left - 4, y: pad.top + innerH, class: 'tick', 'text-anchor': 'end' }, '0'),
  );
  if (n > 0) {
    root.append(
      svg('text', { x: pad.left, y: height - 4, class: 'tick' }, spec.labels[0]),
      svg('text', { x: width - pad.right, y: height - 4, class: 'tick', 'text-anchor': 'end' }, spec.labels[n - 1]),
    );
  }
  spec.series.forEach((s, k) => {
    // One path with a move wherever a null broke the line.
    let d = '';
    let pen = false;
    const points: SVGElement[] = [];
    s.values.forEach((v, i) => {
      if (v === null) return void (pen = false);
      d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
      points.push(svg('circle', { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 2.5, class: `point ${s.className}` }, svg('title', {}, `${s.name} at ${spec.labels[i]}: ${axisNumber(v)} ${spec.unit}`)));
    });
    root.append(svg('path', { d, class: `line ${s.className}`, fill: 'none' }), ...points);
    root.append(svg('text', { x: width - pad.right - (spec.series.length - k) * 48 + 40, y: 13, class: `legend ${s.className}`, 'text-anchor': 'end' }, s.name));
  });
  return root;
}
