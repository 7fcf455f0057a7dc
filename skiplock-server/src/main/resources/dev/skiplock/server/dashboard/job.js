// One job: its fields, dependencies as links, progress, steps, the live log (SSE) and its actions.
import {clearNotice, fill, h, heading, notify, statusBadge, TERMINAL, time} from './dom.js';
import {api, download, followEvents, post} from './api.js';

const JSON_FIELDS = new Set(['args', 'metadata', 'result', 'progress']);
// The page keeps a job's last LOG_LINES log lines, each cut at LOG_LINE characters: a job may print
// millions, or lines of up to 64 KiB each, and a page holding every one slows the browser to a
// halt. The download has them all, whole.
const LOG_LINES = 10_000;
const LOG_LINE = 2_000;
// And its last STEPS step events, each output cut at STEP_OUTPUT characters: a job that checkpoints
// each of its items (up to 1 MiB each) would do the same.
const STEPS = 1_000;
const STEP_OUTPUT = 10_000;
const TIME_FIELDS = new Set(['availableAt', 'requestedAt', 'startedAt', 'finishedAt', 'lockedUntil']);

export function job(main, id) {
  const path = `/api/v1/jobs/${encodeURIComponent(id)}`;
  const status = h('span', {id: 'job-status'});
  const actions = h('div', {class: 'actions', role: 'group', 'aria-label': 'Job actions'});
  const progress = h('div', {id: 'job-progress'});
  const fields = h('dl', {class: 'fields', id: 'job-fields'});
  const steps = h('ol', {id: 'job-steps', class: 'steps'});
  const stepsTrimmed = h('p', {id: 'steps-trimmed', class: 'muted', hidden: true});
  const log = h('pre', {id: 'job-log', class: 'terminal', role: 'log', 'aria-live': 'polite',
    'aria-label': 'Log output', tabindex: 0});
  const trimmed = h('p', {id: 'log-trimmed', class: 'muted', hidden: true});
  const stream = h('p', {id: 'stream-state', class: 'muted'}, 'Connecting to the event stream…');
  const downloadLink = h('a', {href: `${path}/events/download`, download: `${id}-events.ndjson`,
    onclick: event => {
      event.preventDefault();
      download(`${path}/events/download`, `${id}-events.ndjson`).catch(notify);
    }}, 'Download events (NDJSON)');
  main.append(heading('Job ', h('span', {class: 'mono'}, id), ' ', status), actions, progress,
      h('section', {'aria-labelledby': 'log-title'}, h('h2', {id: 'log-title'}, 'Log'), stream, trimmed, log, downloadLink),
      h('section', {'aria-labelledby': 'steps-title'}, h('h2', {id: 'steps-title'}, 'Steps'), stepsTrimmed, steps),
      h('section', {'aria-labelledby': 'fields-title'}, h('h2', {id: 'fields-title'}, 'Fields'), fields));

  const aborter = new AbortController();
  const appendLog = logAppender(log, trimmed, aborter.signal);
  const appendStep = stepAppender(steps, stepsTrimmed);
  let current = null;
  const refresh = oneAtATime(async () => {
    current = await api(path);
    fill(status, statusBadge(current.status));
    renderFields(fields, current);
    renderProgress(progress, current.progress);
    renderActions(actions, current, path, refresh);
  });
  // A failed read of the job after an event says so in the status line, until a read works.
  let readFailure = null;
  const readWorked = () => {
    if (readFailure !== null) clearNotice(readFailure);
    readFailure = null;
  };
  const onEvent = event => {
    if (event.type === 'log') appendLog(event);
    else if (event.type === 'step') appendStep(event);
    if (event.type === 'status' || event.type === 'progress') {
      refresh().then(readWorked, error => {
        notify(error);
        readFailure = document.getElementById('notice').textContent;
      });
    }
  };
  // The stream line: live, or reconnecting and why (null: the last call was answered).
  const connected = error => fill(stream, error ? `Reconnecting (${error.message})…` : 'Live: following the job\'s events.');
  // The job, read until it answers: a read that fails for a while (no answer, a server restarting,
  // a proxy's 502) is tried again each second, the stream line saying why; before, one failed read
  // ended the following for good while the line still said "Live". Any other answer (a 404, a 400)
  // ends the page, saying it.
  const live = async () => {
    while (!aborter.signal.aborted) {
      try {
        await refresh();
        readWorked();
        if (stream.textContent.startsWith('Reconnecting')) fill(stream, 'Connecting to the event stream…');
        return;
      } catch (error) {
        if (aborter.signal.aborted || !transient(error)) throw error;
        connected(error);
      }
      await new Promise(resolve => setTimeout(resolve, 1000));
    }
  };
  // A job retried just after its stream ended: while the job is not terminal (as read after the
  // stream ended), follow on from the last event seen.
  const follow = async lastId => {
    const seen = await followEvents(id, onEvent, aborter.signal, lastId, connected);
    if (aborter.signal.aborted) return;
    await live();
    if (!TERMINAL.has(current.status)) await follow(seen);
  };
  live().then(() => follow(null)).then(() => {
    if (!aborter.signal.aborted) fill(stream, 'The job has finished: all its events have arrived.');
  }).catch(error => {
    if (aborter.signal.aborted) return;
    if (error.status === 404) fill(main, heading('Job not found'), h('p', {}, `No job ${id} (or not yours).`));
    else notify(error);
  });
  return () => aborter.abort();
}

/** Whether a call that failed so may work if made again: no answer, or the server's or a proxy's 5xx, 408 or 429. */
function transient(error) {
  return error.status === undefined ? error instanceof TypeError : error.status >= 500 || error.status === 408 || error.status === 429;
}

/**
 * Runs task one call at a time: a call while one runs asks for one more run after it, and every
 * call made meanwhile resolves with that run. A job that reported progress 10,000 times sent as
 * many reads of the job when its page replayed the events, answered in any order.
 */
function oneAtATime(task) {
  let running = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await task();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}

/**
 * Returns a function that takes a log event. Lines are added once per frame, all that arrived
 * since, with one layout read for the scroll: read at each line, the layout of the whole log made
 * a job of 12,000 lines hang the page. Past LOG_LINES the oldest lines go, and trimmed says how
 * many; a reader scrolled up keeps their place. Nothing runs once signal aborts (the page left).
 */
function logAppender(log, trimmed, signal) {
  let pending = [];
  let dropped = 0;
  let frame = null;
  signal.addEventListener('abort', () => cancelAnimationFrame(frame), {once: true});
  const flush = () => {
    frame = null;
    let lines = pending;
    pending = [];
    if (lines.length >= LOG_LINES) { // a replay: what the log held and the batch's oldest go at once
      dropped += log.childElementCount + lines.length - LOG_LINES;
      lines = lines.slice(-LOG_LINES);
      log.replaceChildren();
    }
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    const fragment = document.createDocumentFragment();
    for (const event of lines) {
      fragment.append(h('span', {class: `line ${event.stream === 'stderr' ? 'stderr' : 'stdout'}`},
          cut(event.message ?? '', LOG_LINE)), '\n');
    }
    log.append(fragment);
    const excess = log.childElementCount - LOG_LINES;
    if (excess > 0) {
      const height = log.scrollHeight;
      const oldest = document.createRange();
      oldest.setStartBefore(log.firstChild);
      oldest.setEndAfter(log.children[excess - 1].nextSibling); // the last line to go, and its newline
      oldest.deleteContents();
      dropped += excess;
      if (!atBottom) log.scrollTop -= height - log.scrollHeight;
    }
    if (dropped > 0) {
      fill(trimmed, dropped === 1 ? 'The first line is not shown here' : `The first ${dropped.toLocaleString('en')} lines are not shown here`,
          `: the last ${LOG_LINES.toLocaleString('en')} are. The download below has every line.`);
      trimmed.hidden = false;
    }
    if (atBottom) log.scrollTop = log.scrollHeight;
  };
  return event => {
    if (frame === null) frame = requestAnimationFrame(flush);
    pending.push(event);
    if (pending.length >= 2 * LOG_LINES) { // between two frames: keep what can be shown
      dropped += pending.length - LOG_LINES;
      pending = pending.slice(-LOG_LINES);
    }
  };
}

/** Appends a step event to steps, keeping the last STEPS; says in trimmed how many went. */
function stepAppender(steps, trimmed) {
  let dropped = 0;
  return event => {
    steps.append(stepItem(event));
    if (steps.childElementCount <= STEPS) return;
    steps.firstElementChild.remove();
    dropped++;
    fill(trimmed, dropped === 1 ? 'The first step event is not shown here' : `The first ${dropped.toLocaleString('en')} step events are not shown here`,
        `: the last ${STEPS.toLocaleString('en')} are. The events' download has every one.`);
    trimmed.hidden = false;
  };
}

function stepItem(event) {
  const output = event.data === null || event.data === undefined ? null : JSON.stringify(event.data, null, 2);
  const detail = output === null ? null : h('pre', {class: 'json'}, cut(output, STEP_OUTPUT));
  return h('li', {'data-step': event.step ?? ''}, h('strong', {}, event.step ?? '(step)'), ' ',
      event.status ? statusBadge(event.status) : null, ' ', time(event.ts),
      event.message ? h('div', {}, cut(event.message, STEP_OUTPUT)) : null, detail);
}

/** text, or its first max characters and how many more there are. */
function cut(text, max) {
  return text.length <= max ? text : `${text.slice(0, max)}… (${(text.length - max).toLocaleString('en')} characters more)`;
}

function renderProgress(element, value) {
  if (value === null || value === undefined) return fill(element);
  const percent = typeof value === 'number' ? value : value?.percent;
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof percent !== 'number') return fill(element, h('p', {}, 'Progress: ', text));
  const scaled = percent <= 1 ? percent * 100 : percent;
  fill(element, h('label', {for: 'job-progress-bar'}, 'Progress '),
      h('progress', {id: 'job-progress-bar', max: 100, value: Math.min(100, Math.max(0, scaled))}),
      ' ', text);
}

function renderFields(list, job) {
  fill(list, Object.entries(job).flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, fieldValue(name, value))]));
}

function fieldValue(name, value) {
  if (name === 'dependsOn') {
    return value.length ? h('ul', {class: 'links'}, value.map(dependency =>
        h('li', {}, h('a', {href: `#/jobs/${dependency}`, class: 'mono'}, dependency)))) : 'none';
  }
  if (value === null || value === undefined) return h('span', {class: 'muted'}, 'null');
  if (TIME_FIELDS.has(name)) return time(value);
  if (JSON_FIELDS.has(name) || typeof value === 'object') return h('pre', {class: 'json'}, JSON.stringify(value, null, 2));
  if (name === 'status') return statusBadge(value);
  return String(value);
}

function renderActions(element, job, path, refresh) {
  const terminal = TERMINAL.has(job.status);
  const act = (label, question, run) => h('button', {type: 'button', 'data-action': label.toLowerCase(),
    onclick: async event => {
      if (!window.confirm(question)) return;
      event.currentTarget.disabled = true;
      let stayed = true;
      try {
        stayed = (await run()) !== false;
      } catch (error) {
        notify(error);
      }
      // an action that moved on to another view (returned false) leaves this one alone
      if (stayed) await refresh().catch(() => {});
    }}, label);
  fill(element,
      terminal ? null : act('Cancel', `Cancel job ${job.id}?`, async () => {
        await post(`${path}/cancel`);
        notify('Cancel requested.');
      }),
      terminal ? act('Retry', `Retry job ${job.id}?`, async () => {
        await post(`${path}/retry`);
        window.dispatchEvent(new HashChangeEvent('hashchange'));
        notify('Job queued again.');
        return false;
      }) : null,
      terminal ? act('Delete', `Delete job ${job.id} and its events?`, async () => {
        await api(path, {method: 'DELETE'});
        // the router clears the status line on navigation: say it once the list is shown
        window.addEventListener('hashchange', () => notify(`Job ${job.id} deleted.`), {once: true});
        location.hash = '#/jobs';
        return false;
      }) : null);
}
