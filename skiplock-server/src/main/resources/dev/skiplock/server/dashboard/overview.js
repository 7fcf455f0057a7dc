// Overview: per queue, its jobs by status, whether it is paused, and a pause / resume button.
import {every, fill, h, heading, notify, STATUSES} from './dom.js';
import {api, post} from './api.js';

export function overview(main) {
  const body = h('tbody');
  const table = h('table', {class: 'queues'},
      h('caption', {}, 'Jobs per queue by status'),
      h('thead', {}, h('tr', {},
          h('th', {scope: 'col'}, 'Queue'),
          STATUSES.map(status => h('th', {scope: 'col'}, status.replace('_', ' '))),
          h('th', {scope: 'col'}, 'State'),
          h('th', {scope: 'col'}, h('span', {class: 'visually-hidden'}, 'Action')))),
      body);
  main.append(heading('Queues'), h('div', {class: 'scroll'}, table));

  let shown = null;
  const load = async (force = false) => {
    if (force) shown = null;
    const {queues} = await api('/api/v1/queues');
    const text = JSON.stringify(queues);
    if (text === shown) return;
    shown = text;
    fill(body, queues.length ? queues.map(queue => row(queue, load))
        : h('tr', {}, h('td', {colspan: STATUSES.length + 3}, 'No queues yet.')));
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
      h('td', {class: 'queue-state', 'data-label': 'state'}, queue.paused ? 'paused' : 'active'),
      h('td', {}, button));
}
