// Soak: mixed load for a fixed time; resident memory of every process at the
// start and at the end, and what the load was answered.
import { sleep } from '../bench/lib/common.mjs';
import { hungAfterMs, startLoad } from './lib/load.mjs';
import { fmtTally, tally } from './lib/report.mjs';

export async function soak(stack, keys, report, fx, { seconds }) {
  const S = 'soak';
  const load = startLoad(stack, keys.full, fx);
  await sleep(Math.min(5000, seconds * 200));
  const start = Object.fromEntries(stack.apps.map((a) => [a.name, a.rssMiB()]));
  await sleep(seconds * 1000);
  const end = Object.fromEntries(stack.apps.map((a) => [a.name, a.rssMiB()]));
  const records = await load.stop();
  const fivexx = records.filter((r) => r.status >= 500 || r.status === 0).length;
  const hung = records.filter((r) => r.status === -1).length;
  const lat = records.map((r) => r.ms).sort((a, b) => a - b);
  report.add(
    S,
    `${seconds} s mixed load: requests, statuses`,
    `${records.length}: ${fmtTally(tally(records.map((r) => r.status)))}`,
  );
  report.add(
    S,
    'p50 / p99 / max latency (ms)',
    `${lat[Math.floor(lat.length / 2)]?.toFixed(0)} / ${lat[Math.floor(lat.length * 0.99)]?.toFixed(0)} / ${lat[lat.length - 1]?.toFixed(0)}`,
  );
  report.add(S, `5xx / hung (> ${hungAfterMs(stack.env)} ms)`, `${fivexx} / ${hung}`, {
    target: '0 / 0',
    ok: fivexx === 0 && hung === 0,
    finding: 'errors without a fault',
  });
  for (const name of Object.keys(start)) {
    const growth = end[name] / start[name] - 1;
    // A few minutes cannot prove a leak; a process that grows by half in them is worth a look.
    report.add(S, `RSS ${name} start -> end (MiB)`, `${start[name].toFixed(0)} -> ${end[name].toFixed(0)}`, {
      target: '< +50 %',
      ok: growth < 0.5,
      finding: 'memory grows under steady load',
    });
  }
}
