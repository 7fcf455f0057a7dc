// Overview: per queue, its jobs by status, how long its oldest available job has waited, the jobs
// it finished in each of the last 15 minutes (a bar chart), whether it is paused, and a pause / resume button.
import {every, fill, h, heading, notify, roughAge, STATUSES, svg} from './dom.js';
import {api, post} from './api.js';

export function overview(main) {
  const body = h('tbody');
  const table = h('table', {class: 'queues'},
      h('caption', {}, 'Jobs per queue by status, oldest waiting job and jobs finished per minute'),
      h('thead', {}, h('tr', {},
          h('th', {scope: 'col'}, 'Queue'),
          STATUSES.map(status => h('th', {scope: 'col'}, status.replace('_', ' '))),
          h('th', {scope: 'col', class: 'wraps'}, 'Oldest waiting'),
          h('th', {scope: 'col', class: 'wraps'}, 'Finished, last 15 min'),
          h('th', {scope: 'col'}, 'State'),
          h('th', {scope: 'col'}, h('span', {class: 'visually-hidden'}, 'Action')))),
      body);
  main.append(heading('Queues'), h('div', {class: 'scroll'}, table));

  let shown = null;
  const load = async (force = false) => {
    if (force) shown = null;
    const {queues} = await api('/api/v1/queues');
    const text = JSON.stringify(queues);
    if (text !== shown) {
      shown = text;
      fill(body, queues.length ? queues.map(queue => row(queue, load))
          : h('tr', {}, h('td', {colspan: STATUSES.length + 5}, 'No queues yet.')));
    }
    // An age grows with the clock while the answer stays the same: its text is refreshed at each
    // load, in place, so an unchanged row keeps its elements (and a focused button its focus).
    for (const since of body.querySelectorAll('[data-since]')) since.textContent = roughAge(since.dataset.since);
  };
  return every(2000, load);
}

function row(queue, reload) {
  const action = queue.paused ? 'resume' : 'pause';
  const button = h('button', {
    type: 'button',
    'data-queue': queue.name,
    'aria-label': `${queue.paused ? 'Resume' : 'Pause'} queue ${queue.name}`,
    onclick: async () => {
      button.disabled = true;
      try {
        await post(`/api/v1/queues/${encodeURIComponent(queue.name)}/${action}`);
        notify(`Queue ${queue.name} ${queue.paused ? 'resumed' : 'paused'}.`);
        await reload(true);
      } catch (error) {
        notify(error);
        button.disabled = false;
      }
    },
  }, queue.paused ? 'Resume' : 'Pause');
  return h('tr', {'data-queue': queue.name},
      h('th', {scope: 'row'}, queue.name),
      STATUSES.map(status => h('td', {'data-label': status.replace('_', ' ')},
          h('a', {href: `#/jobs?queue=${encodeURIComponent(queue.name)}&status=${status}`,
            'aria-label': `${queue.counts[status] ?? 0} ${status} jobs in ${queue.name}`},
          String(queue.counts[status] ?? 0)))),
      h('td', {class: 'oldest-waiting', 'data-label': 'oldest waiting'}, oldestWaiting(queue.oldestQueuedAt)),
      h('td', {'data-label': 'finished, last 15 min'}, throughput(queue.finishedPerMinute)),
      h('td', {class: 'queue-state', 'data-label': 'state'}, queue.paused ? 'paused' : 'active'),
      h('td', {}, button));
}

function oldestWaiting(iso) {
  if (!iso) return h('span', {title: 'No available job waits'}, '—');
  return h('span', {'data-since': iso, title: `Available since ${new Date(iso).toLocaleString()}`}, roughAge(iso));
}

// Bars 4 wide, 2 apart, on a baseline; each scaled to the queue's busiest minute (a minute with
// any finished job stays at least 2 high, so it never looks like an empty one).
const BAR = 4;
const GAP = 2;
const HEIGHT = 24;

/** The queue's finishes per minute, oldest first, as a bar chart with its total beside it. */
function throughput(perMinute) {
  const total = perMinute.reduce((sum, count) => sum + count, 0);
  const max = Math.max(...perMinute);
  const label = `${total} ${total === 1 ? 'job' : 'jobs'} finished in the last ${perMinute.length} minutes; `
      + `${perMinute.at(-1)} in the current minute`;
  const width = perMinute.length * (BAR + GAP) - GAP;
  const bars = perMinute.map((count, minute) => {
    const height = count === 0 ? 0 : Math.max(2, Math.round(count / max * (HEIGHT - 2)));
    return svg('rect', {class: minute === perMinute.length - 1 ? 'bar current' : 'bar', 'data-count': count,
      x: minute * (BAR + GAP), y: HEIGHT - 1 - height, width: BAR, height});
  });
  return h('span', {class: 'throughput'},
      svg('svg', {role: 'img', 'aria-label': label, width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`},
          svg('title', {}, label),
          svg('rect', {class: 'baseline', x: 0, y: HEIGHT - 1, width, height: 1}),
          bars),
      h('span', {class: 'throughput-total', 'aria-hidden': 'true'}, String(total)));
}
