import { requestDevice, type WeftDevice } from '@weft/gpu';
import { fmtBytes, fmtItems, fmtMs, fmtN } from '../format.ts';
import type { Measurement } from '../harness.ts';
import { htmlReport } from '../html.ts';
import { type BenchReport, summaryHtmlTable } from '../report.ts';
import { SUITES } from '../suites/index.ts';
import { parseQuery, parseSizes, toQuery, type WebBenchOptions } from './params.ts';
import { runWebBench } from './run.ts';

/**
 * The browser page of the bench: controls (or URL parameters), live progress, then the HTML report.
 * For tests and scripts, `document.body.dataset.state` goes idle -> running -> done | error, and
 * `window.__weftResult` holds the report (`window.__weftError` the message on error).
 */
declare global {
  interface Window {
    __weftResult?: BenchReport;
    __weftError?: string;
  }
}

const $ = <T extends Element>(selector: string) => {
  const el = document.querySelector<T>(selector);
  if (!el) throw new Error(`page is missing ${selector}`);
  return el;
};
const form = $<HTMLFormElement>('#controls');
const field = <T extends HTMLInputElement | HTMLSelectElement>(name: string) =>
  form.elements.namedItem(name) as T;
const runButton = $<HTMLButtonElement>('#run');
const progress = $<HTMLProgressElement>('#progress');
const progressLabel = $<HTMLSpanElement>('#progress-label');
const adapterLine = $<HTMLParagraphElement>('#adapter');
const errorLine = $<HTMLParagraphElement>('#error');
const live = $<HTMLTableElement>('#live');
const downloads = $<HTMLParagraphElement>('#downloads');
const reportHost = $<HTMLDivElement>('#report');

let devicePromise: Promise<WeftDevice> | undefined;

function setState(state: 'idle' | 'running' | 'done' | 'error') {
  document.body.dataset['state'] = state;
  runButton.disabled = state === 'running';
}

function fillForm(o: WebBenchOptions) {
  const suite = field<HTMLSelectElement>('suite');
  suite.replaceChildren(...SUITES.map((s) => new Option(s, s)));
  suite.value = o.suites[0] ?? 'primitives';
  field<HTMLInputElement>('sizes').value = o.sizes
    .map((n) => (Number.isInteger(Math.log2(n)) ? Math.log2(n) : n))
    .join(',');
  field<HTMLInputElement>('repeat').value = o.repeat !== undefined ? String(o.repeat) : '';
  field<HTMLInputElement>('warmup').value = o.warmupMs !== undefined ? String(o.warmupMs) : '';
  field<HTMLInputElement>('cases').value = o.cases ?? '';
  field<HTMLInputElement>('seed').value = String(o.seed);
}

function readForm(): WebBenchOptions {
  const value = (name: string) => field(name).value.trim();
  const o: WebBenchOptions = {
    suites: [value('suite')],
    sizes: parseSizes(value('sizes')),
    seed: Number(value('seed') || '1'),
    autorun: false,
  };
  if (value('repeat')) o.repeat = Number(value('repeat'));
  if (value('warmup')) o.warmupMs = Number(value('warmup'));
  if (value('cases')) o.cases = value('cases');
  // The same checks as URL parameters, so a typo reads the same wherever it was made.
  return { ...parseQuery(toQuery(o)), autorun: false };
}

function showAdapter(device: WeftDevice) {
  const a = device.adapter;
  adapterLine.textContent =
    `Adapter: ${[a.vendor, a.architecture, a.device, a.description].filter(Boolean).join(' / ') || '(no adapter info)'}` +
    `${a.software ? '  [software adapter: these are CPU figures, not GPU figures]' : ''}` +
    ` · subgroups: ${device.hasSubgroups ? `yes (${a.subgroupMinSize ?? '?'}-${a.subgroupMaxSize ?? '?'})` : 'no'}` +
    ` · timestamps: ${device.hasTimestamps ? 'yes' : 'no (wall time)'}` +
    ` · maxStorageBufferBindingSize: ${device.limits.maxStorageBufferBindingSize}`;
}

function liveRow(m: Measurement): HTMLTableRowElement {
  const row = document.createElement('tr');
  const cells = [
    m.name,
    fmtN(m.n),
    m.valid ? fmtMs(m.timeMs) : '-',
    m.valid ? fmtItems(m.itemsPerSec) : '-',
    m.valid ? fmtBytes(m.bytesPerSec) : '-',
    m.valid ? 'yes' : `FAILED: ${m.error ?? ''}`,
  ];
  for (const text of cells) {
    const td = document.createElement('td');
    td.textContent = text;
    row.append(td);
  }
  if (!m.valid) row.lastElementChild?.classList.add('bad');
  return row;
}

/** The report's own document (styles included) in a shadow root: exactly what `--html` writes, scoped. */
function showReport(report: BenchReport) {
  const html = htmlReport(report, summaryHtmlTable(report));
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const root = reportHost.shadowRoot ?? reportHost.attachShadow({ mode: 'open' });
  const body = document.createElement('div');
  body.className = 'weft-report';
  body.append(...[...doc.body.childNodes].map((n) => document.importNode(n, true)));
  // The report's `body` rules apply to its wrapper here.
  const styles = [...doc.querySelectorAll('style')].map((s) => {
    const style = document.createElement('style');
    style.textContent = (s.textContent ?? '').replace(/\bbody\s*\{/g, '.weft-report{');
    return style;
  });
  const inPage = document.createElement('style');
  inPage.textContent = '.weft-report{margin:0;max-width:none}pre{white-space:pre-wrap}';
  styles.push(inPage);
  root.replaceChildren(...styles, body);
  const link = (id: string, text: string, type: string) => {
    const a = $<HTMLAnchorElement>(id);
    if (a.href.startsWith('blob:')) URL.revokeObjectURL(a.href);
    a.href = URL.createObjectURL(new Blob([text], { type }));
  };
  link('#download-json', JSON.stringify(report, null, 1), 'application/json');
  link('#download-html', html, 'text/html');
  downloads.hidden = false;
}

async function run(o: WebBenchOptions) {
  setState('running');
  errorLine.hidden = true;
  live.hidden = false;
  live.tBodies[0]?.replaceChildren();
  delete window.__weftResult;
  delete window.__weftError;
  history.replaceState(null, '', toQuery(o));
  try {
    if (!('gpu' in navigator)) {
      throw new Error(
        'navigator.gpu is not available: use a browser with WebGPU (Chrome/Edge 113+, Safari 26, Firefox 141+ on Windows); headless Chromium on Linux needs --enable-unsafe-webgpu --enable-features=Vulkan',
      );
    }
    progressLabel.textContent = 'requesting a WebGPU device...';
    devicePromise ??= requestDevice({ label: 'weft bench' });
    const device = await devicePromise;
    showAdapter(device);
    let shown = 0;
    const report = await runWebBench(device, o, (p) => {
      for (; shown < p.measurements.length; shown++) live.tBodies[0]?.append(liveRow(p.measurements[shown]!));
      progress.max = Math.max(p.total, 1);
      progress.value = p.done;
      progressLabel.textContent = `${p.suite}: ${p.done}/${p.total}${p.done < p.total ? ` · ${p.label}` : ''}`;
    });
    for (const m of report.measurements.slice(shown)) live.tBodies[0]?.append(liveRow(m));
    live.hidden = true;
    showReport(report);
    const failed = report.measurements.filter((m) => !m.valid).length;
    progressLabel.textContent =
      failed > 0
        ? `${failed} of ${report.measurements.length} measurement(s) FAILED validation or threw: see the table`
        : `all ${report.measurements.length} measurements validated against the TypeScript references`;
    window.__weftResult = report;
    setState('done');
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    // A lost device cannot be reused; the next run asks for a new one.
    devicePromise = undefined;
    errorLine.textContent = message;
    errorLine.hidden = false;
    progressLabel.textContent = 'failed';
    window.__weftError = message;
    setState('error');
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  let o: WebBenchOptions;
  try {
    o = readForm();
  } catch (e) {
    errorLine.textContent = (e as Error).message;
    errorLine.hidden = false;
    return;
  }
  void run(o);
});

try {
  const o = parseQuery(location.search);
  fillForm(o);
  setState('idle');
  if (o.autorun) void run(o);
} catch (e) {
  fillForm(parseQuery(''));
  errorLine.textContent = `URL parameters: ${(e as Error).message}`;
  errorLine.hidden = false;
  window.__weftError = errorLine.textContent;
  setState('error');
}
