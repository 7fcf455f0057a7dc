// Workers: the registry of worker processes (GET /api/v1/workers) with the age of each heartbeat.
import {age, every, fill, h, heading, statusBadge, time} from './dom.js';
import {api} from './api.js';

export function workers(main) {
  const body = h('tbody');
  main.append(heading('Workers'), h('div', {class: 'scroll'}, h('table', {class: 'workers'},
      h('caption', {}, 'Worker processes'),
      h('thead', {}, h('tr', {}, ['Status', 'Host', 'PID', 'Queues', 'Concurrency', 'Started',
        'Last heartbeat'].map(name => h('th', {scope: 'col'}, name)))),
      body)));
  return every(3000, async () => {
    const answer = await api('/api/v1/workers');
    fill(body, answer.workers.length ? answer.workers.map(worker => h('tr', {'data-worker': worker.id},
        h('td', {'data-label': 'status'}, statusBadge(worker.status)),
        h('td', {'data-label': 'host'}, worker.host),
        h('td', {'data-label': 'pid'}, String(worker.pid)),
        h('td', {'data-label': 'queues'}, (worker.queues ?? []).join(', ')),
        h('td', {'data-label': 'concurrency'}, String(worker.concurrency ?? '–')),
        h('td', {'data-label': 'started'}, time(worker.startedAt)),
        h('td', {'data-label': 'heartbeat'}, `${age(worker.lastHeartbeatAt)} ago`)))
        : h('tr', {}, h('td', {colspan: 7}, 'No workers registered.')));
  });
}
