// The overview's charts (recharts). Each chart has a title for screen readers and the same numbers
// as a table under a disclosure, so nothing is only in the picture.
import type { ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

// The stylesheet's colours (SVG attributes take plain values, not its custom properties).
const ACCENT = '#0550ae';
const BAD = '#a40e26';
const SEVERITY_COLOUR: Record<string, string> = { critical: '#82071e', high: BAD, medium: '#7d4e00', low: '#0a3069' };
const HEIGHT = 240;

/** A chart with its numbers as a table behind a disclosure. */
function Charted({ chart, caption, head, rows }: { chart: ReactNode; caption: string; head: string[]; rows: Array<Array<ReactNode>> }) {
  return (
    <>
      <ResponsiveContainer width="100%" height={HEIGHT}>
        {chart}
      </ResponsiveContainer>
      <details>
        <summary>{caption} as a table</summary>
        {/* Focusable: a table wider than a phone scrolls, and a keyboard must be able to scroll it. */}
        <div className="table-wrap" tabIndex={0} role="region" aria-label={`${caption} (table)`}>
          <table>
            <thead>
              <tr>
                {head.map((cell) => (
                  <th key={cell} scope="col">
                    {cell}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr key={index}>
                  {row.map((cell, column) => (
                    <td key={column}>{cell}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}

export interface DayCount {
  day: string;
  decisions: number;
  blocked: number;
  /** Blocked over decisions in percent; null on a day without decisions. */
  blockRate: number | null;
}

export function DecisionsChart({ days }: { days: DayCount[] }) {
  const caption = 'Decisions and block rate per day';
  return (
    <Charted
      caption={caption}
      chart={
        <ComposedChart data={days} title={caption} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="day" />
          <YAxis yAxisId="count" allowDecimals={false} />
          <YAxis yAxisId="rate" orientation="right" domain={[0, 100]} unit="%" />
          <Tooltip />
          <Legend />
          <Bar yAxisId="count" dataKey="decisions" name="Decisions" fill={ACCENT} isAnimationActive={false} />
          <Line yAxisId="rate" dataKey="blockRate" name="Block rate (%)" stroke={BAD} strokeWidth={2} connectNulls isAnimationActive={false} />
        </ComposedChart>
      }
      head={['Day', 'Decisions', 'Blocked', 'Block rate']}
      rows={days.map((day) => [day.day, day.decisions, day.blocked, day.blockRate === null ? '—' : `${day.blockRate.toFixed(1)} %`])}
    />
  );
}

export interface DetectorLatency {
  detector: string;
  p95: number | null;
  runs: number;
  degraded: number;
}

export function LatencyChart({ detectors }: { detectors: DetectorLatency[] }) {
  const caption = 'Detector latency p95 (ms)';
  return (
    <Charted
      caption={caption}
      chart={
        <BarChart data={detectors} layout="vertical" title={caption} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis type="number" unit=" ms" />
          <YAxis type="category" dataKey="detector" width={140} tick={{ fontSize: 12 }} />
          <Tooltip />
          <Bar dataKey="p95" name="p95 (ms)" fill={ACCENT} isAnimationActive={false} />
        </BarChart>
      }
      head={['Detector', 'p95', 'Runs', 'Degraded runs']}
      rows={detectors.map((detector) => [detector.detector, detector.p95 === null ? '—' : `${detector.p95.toFixed(1)} ms`, detector.runs, detector.degraded])}
    />
  );
}

export function SeverityChart({ counts }: { counts: Array<{ severity: string; open: number }> }) {
  const caption = 'Open findings by severity';
  return (
    <Charted
      caption={caption}
      chart={
        <BarChart data={counts} title={caption} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="severity" />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Bar dataKey="open" name="Open findings" isAnimationActive={false}>
            {counts.map((count) => (
              <Cell key={count.severity} fill={SEVERITY_COLOUR[count.severity] ?? ACCENT} />
            ))}
          </Bar>
        </BarChart>
      }
      head={['Severity', 'Open']}
      rows={counts.map((count) => [count.severity, count.open])}
    />
  );
}
