import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/**
 * Charts as SVG drawn here (no chart library): vertical bars for a series over time, horizontal
 * bars for a ranking or a mix. The SVG is decoration for the eye (aria-hidden); the same figures
 * go in a table that screen readers read (and that a person can open under "Ver los números").
 */

export interface Point {
  label: string;
  value: number;
  /** The value as a reader reads it ("$ 1.234,00"). */
  text: string;
}

function FigureTable({ caption, head, points }: { caption: string; head: [string, string]; points: Point[] }) {
  // Always in the page for screen readers; shown to the eye on request.
  const [shown, setShown] = useState(false);
  return (
    <>
      <button type="button" class="link chart-toggle no-print" aria-hidden="true" tabIndex={-1} onClick={() => setShown(!shown)}>
        {shown ? 'Ocultar los números' : 'Ver los números'}
      </button>
      {/* The wrapper hides it: a table is never narrower than its content, whatever its width says. */}
      <div class={shown ? 'chart-table table-wrap' : 'visually-hidden'}>
        <table>
          <caption class="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{head[0]}</th>
              <th scope="col" class="num">
                {head[1]}
              </th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.label}>
                <td>{p.label}</td>
                <td class="num">{p.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Figure({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <figure class="chart" aria-label={title}>
      {children}
    </figure>
  );
}

/** About half the width of a label of the chart's 11 px font, in the SVG's units. */
const halfLabel = (text: string) => text.length * 3.5;

/**
 * A label under its bar: centred, except the first and last ones, which would be cut by the chart's
 * edge ("01/11" read ")1/11", "29/11" read "29/1"): those start at the left edge or end at the right one.
 */
function Label({ text, center, width, y }: { text: string; center: number; width: number; y: number }) {
  const [x, anchor] =
    center - halfLabel(text) < 0 ? [0, 'start'] : center + halfLabel(text) > width ? [width, 'end'] : [center, 'middle'];
  return (
    <text x={x} y={y} class="chart-label" text-anchor={anchor}>
      {text}
    </text>
  );
}

/** Bars over a sequence (hours, days); every `labelEvery`-th label is written under its bar. */
export function ColumnChart({
  title,
  points,
  head,
  labelEvery = 1,
}: {
  title: string;
  points: Point[];
  head: [string, string];
  labelEvery?: number;
}) {
  const width = 600;
  const height = 180;
  const bottom = 20;
  const max = Math.max(...points.map((p) => p.value), 0);
  const step = width / Math.max(points.length, 1);
  const bar = Math.max(step * 0.7, 1);
  return (
    <Figure title={title}>
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" aria-hidden="true" class="chart-svg">
        <line x1="0" x2={width} y1={height - bottom} y2={height - bottom} class="chart-axis" />
        {points.map((p, n) => {
          const h = max === 0 ? 0 : ((height - bottom - 8) * p.value) / max;
          const x = n * step + (step - bar) / 2;
          return (
            <g key={p.label}>
              <rect x={x} y={height - bottom - h} width={bar} height={h} class="chart-bar">
                <title>{`${p.label}: ${p.text}`}</title>
              </rect>
              {n % labelEvery === 0 ? <Label text={p.label} center={x + bar / 2} width={width} y={height - 5} /> : null}
            </g>
          );
        })}
      </svg>
      <FigureTable caption={title} head={head} points={points} />
    </Figure>
  );
}

/** A ranking or a mix: one labelled bar per row, its figure at the end; HTML, so it wraps on a phone. */
export function BarList({ title, points, head }: { title: string; points: Point[]; head: [string, string] }) {
  const max = Math.max(...points.map((p) => p.value), 0);
  return (
    <Figure title={title}>
      <ul class="bar-list" aria-hidden="true">
        {points.map((p) => (
          <li key={p.label}>
            <span class="bar-list-label">{p.label}</span>
            <span class="bar-list-value">{p.text}</span>
            <svg viewBox="0 0 100 6" preserveAspectRatio="none" class="bar-list-bar">
              <title>{p.text}</title>
              <rect x="0" y="0" height="6" width={max === 0 ? 0 : Math.max((100 * p.value) / max, 0.5)} class="chart-bar" />
            </svg>
          </li>
        ))}
      </ul>
      <FigureTable caption={title} head={head} points={points} />
    </Figure>
  );
}
