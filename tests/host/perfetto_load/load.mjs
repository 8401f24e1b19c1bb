// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// node load.mjs FILE [--expect-slices N] [--expect-instants N] [--expect-threads N] [--expect-depth N]
//
// Loads a Trace Event Format file (kptrace latency --perfetto) into Chrome
// DevTools' own Performance-panel trace engine (@paulirish/trace_engine, the
// engine the panel and Lighthouse run, here in node) and reports what the
// panel would draw: the slices and instants it placed on each thread's track,
// the threads' and processes' names. Fails (exit 1, the reasons on stderr)
// when the file is not JSON, the engine throws or complains while parsing,
// its timeline bounds are not numbers, it leaves out an event of the file
// (a partly overlapping slice, a lower-case "i" instant it does not read), a
// drawn slice has no numeric non-negative dur, a B has no E, a thread or a
// process has no name, or a count is not the one expected. Exit 2: usage.
// Installed and run by tests/host/perfetto_load.sh, from .output/perfetto_load.
import fs from 'node:fs';
import {performance} from 'node:perf_hooks';

const usage = 'usage: node load.mjs FILE [--expect-slices N] [--expect-instants N] [--expect-threads N] [--expect-depth N]';
const argv = process.argv.slice(2);
let file = null;
const expect = {};
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const m = /^--expect-(slices|instants|threads|depth)(?:=(.*))?$/.exec(a);
  if (m) {
    const v = m[2] ?? argv[++i];
    if (v === undefined || !/^\d+$/.test(v)) {
      console.error(`${usage}\n${a}: wants a count`);
      process.exit(2);
    }
    expect[m[1]] = Number(v);
  } else if (a.startsWith('-') || file !== null) {
    console.error(`${usage}\nunexpected argument: ${a}`);
    process.exit(2);
  } else {
    file = a;
  }
}
if (file === null) {
  console.error(usage);
  process.exit(2);
}

function die(what) {
  const lines = [].concat(what);
  for (const l of lines.slice(0, 12)) console.error(`perfetto_load: ${file}: ${l}`);
  if (lines.length > 12) console.error(`perfetto_load: ${file}: ... and ${lines.length - 12} more`);
  process.exit(1);
}
const show = e => {
  const s = JSON.stringify(e);
  return s.length > 200 ? s.slice(0, 200) + '...' : s;
};

const t0 = performance.now();
let text;
try {
  text = fs.readFileSync(file, 'utf8');
} catch (e) {
  die(`cannot read: ${e.message}`);
}
let json;
try {
  json = JSON.parse(text);
} catch (e) {
  die(`not JSON: ${e.message}`);
}
// The panel's loader takes either the object form or a bare array.
const events = Array.isArray(json) ? json : json?.traceEvents;
if (!Array.isArray(events)) die('no traceEvents array');
const fileEvents = events.slice();  // before the engine, which may reorder
const fromFile = new Set(fileEvents);

// The engine wants window.DOMRect (it is browser code); its package ships the polyfill.
const {polyfillDOMRect} = await import('@paulirish/trace_engine/analyze-trace.mjs');
polyfillDOMRect();
const Trace = await import('@paulirish/trace_engine');
const engineVersion = JSON.parse(fs.readFileSync(
    new URL('./node_modules/@paulirish/trace_engine/package.json', import.meta.url), 'utf8')).version;

// What the engine says on the console while parsing (such as "Begin/End
// events mismatch") is its own complaint about the trace: a failure.
const said = [];
const saved = {error: console.error, warn: console.warn};
console.error = (...a) => said.push(`trace engine said: ${a.join(' ')}`);
console.warn = (...a) => said.push(`trace engine warned: ${a.join(' ')}`);
let parsed;
try {
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  parsed = model.parsedTrace(0);
} catch (e) {
  console.error = saved.error;
  die(`trace engine failed: ${e?.stack ?? e}`);
} finally {
  console.error = saved.error;
  console.warn = saved.warn;
}
const problems = [...said];
if (!parsed) die('trace engine produced no parsed trace');
const {Renderer, Meta} = parsed.data;

// The tracks: every node of every thread's tree is what the panel draws.
const placed = new Set();
const threads = [];
const names = new Map();
let slices = 0, instants = 0, maxDepth = 0;
for (const [pid, proc] of Renderer.processes) {
  for (const [tid, thread] of proc.threads) {
    const t = {pid, tid, name: thread.name, slices: 0, instants: 0};
    const stack = [...thread.tree.roots];
    while (stack.length) {
      const node = stack.pop();
      for (const c of node.children) stack.push(c);
      const e = node.entry;
      placed.add(e);
      if (typeof e.ts !== 'number' || !Number.isFinite(e.ts))
        problems.push(`drawn with a ts that is not a number: ${show(e)}`);
      if (e.ph === 'X') {
        t.slices++;
        maxDepth = Math.max(maxDepth, node.depth + 1);
        names.set(e.name, (names.get(e.name) ?? 0) + 1);
        if (typeof e.dur !== 'number' || !Number.isFinite(e.dur) || e.dur < 0)
          problems.push(`a slice drawn with dur ${JSON.stringify(e.dur)} (not a number >= 0): ${show(e)}`);
        else if (!fromFile.has(e) && e.dur === 0)
          // a synthetic slice the engine made of a B; an E would have set its dur
          problems.push(`a B event the engine found no E for (drawn 0 us long): ${show({...e, ph: 'B', dur: undefined})}`);
      } else if (e.ph === 'I') {
        t.instants++;
        names.set(e.name, (names.get(e.name) ?? 0) + 1);
      }
    }
    slices += t.slices;
    instants += t.instants;
    threads.push(t);
    const tn = Meta.threadsInProcess.get(pid)?.get(tid)?.args?.name;
    if (!tn) problems.push(`thread ${tid} of process ${pid} has no thread_name (the panel shows its tid)`);
    if (!Meta.processNames.get(pid)?.args?.name)
      problems.push(`process ${pid} has no process_name (the panel shows its pid)`);
  }
}

// The timeline's bounds (none for a trace with nothing to draw).
const b = Meta.traceBounds;
if ([b.min, b.max, b.range].some(Number.isNaN) ||
    (placed.size && (![b.min, b.max, b.range].every(Number.isFinite) || b.range < 0)))
  problems.push(`the engine's timeline bounds are not numbers: min ${b.min} max ${b.max} range ${b.range}` +
      ' (a ts or dur that is not a number)');

// Every slice and instant of the file must be on a track.
const left = fileEvents.filter(e => e && ['X', 'I', 'i'].includes(e.ph) && !placed.has(e));
if (left.length) {
  const why = e => e.ph === 'i' ? 'DevTools reads instant events as "ph":"I" only' :
      'it overlaps a slice of its thread partly, or its thread is not drawn';
  problems.push(`the engine left out ${left.length} of the file's slices and instants, first: ${show(left[0])} (${why(left[0])})`);
  const lower = left.filter(e => e.ph === 'i').length;
  if (lower && lower !== left.length) problems.push(`${lower} of them are "ph":"i" instants`);
}

const got = {slices, instants, threads: threads.length, depth: maxDepth};
for (const [k, v] of Object.entries(expect))
  if (got[k] !== v) problems.push(`the engine drew ${k === 'depth' ? 'slices nested ' : ''}${got[k]} ${k === 'depth' ? 'deep' : k}, expected ${v}`);
if (problems.length) die(problems);

const plural = (n, w) => `${n} ${w}${n === 1 ? '' : 's'}`;
const nameList = [...names.keys()].sort();
const perThread = threads.length > 1 ?
    ` (${threads.map(t => `${t.name}[${t.tid}] ${t.slices}`).join(', ')})` : '';
console.log(`loaded: ${plural(slices, 'slice')} on ${plural(threads.length, 'thread')}${perThread}, ` +
    `${plural(instants, 'instant')}, depth ${maxDepth}, ` +
    `names: ${nameList.slice(0, 8).join(', ') || '-'}${nameList.length > 8 ? `, +${nameList.length - 8} more` : ''}; ` +
    `threads: ${threads.map(t => t.name).filter((n, i, a) => a.indexOf(n) === i).join(', ') || '-'} ` +
    `(DevTools trace engine ${engineVersion}, ${((performance.now() - t0) / 1000).toFixed(2)} s)`);
