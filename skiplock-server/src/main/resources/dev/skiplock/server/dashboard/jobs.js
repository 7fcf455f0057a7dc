// Jobs: newest first, filtered by status, queue and kind, paged by the API's nextCursor. The first
// page refreshes itself; a later page (reached by cursor) stays as it was read. An admin token sees
// every tenant's jobs (GET /api/v1/whoami says so): a tenant column and a tenant filter then.
import {every, fill, h, heading, statusBadge, STATUSES, time} from './dom.js';
import {api} from './api.js';

const FILTERS = ['status', 'queue', 'kind', 'tenant'];
const COLUMNS = ['Job', 'Kind', 'Queue', 'Status', 'Attempt', 'Requested', 'Finished'];

export function jobs(main, params) {
  main.append(heading('Jobs'));
  let stop = () => {};
  let stopped = false;
  // Who the caller is decides the columns: asked every 2 s until it answers (once, a failed ask
  // left the page a heading for good).
  const stopAsking = every(2000, async () => {
    const caller = await api('/api/v1/whoami');
    stopAsking();
    if (!stopped) stop = render(main, params, caller.allTenants === true);
  });
  return () => {
    stopped = true;
    stopAsking();
    stop();
  };
}

function render(main, params, allTenants) {
  const columns = allTenants ? ['Tenant', ...COLUMNS] : COLUMNS;
  const body = h('tbody');
  const pager = h('nav', {class: 'pager', 'aria-label': 'Pages'});
  main.append(filterForm(params, allTenants), h('div', {class: 'scroll'}, h('table', {class: 'jobs'},
      h('caption', {}, allTenants ? 'Jobs of every tenant, newest first' : 'Jobs, newest first'),
      h('thead', {}, h('tr', {}, columns.map(name => h('th', {scope: 'col'}, name)))),
      body)), pager);

  const query = new URLSearchParams();
  for (const name of [...FILTERS, 'cursor']) {
    if (params.get(name)) query.set(name, params.get(name));
  }
  query.set('limit', '50');
  let shown = null;
  const load = async () => {
    const page = await api(`/api/v1/jobs?${query}`);
    const text = JSON.stringify(page);
    if (text === shown) return;
    shown = text;
    fill(body, page.jobs.length ? page.jobs.map(job => row(job, allTenants))
        : h('tr', {}, h('td', {colspan: columns.length}, 'No jobs match.')));
    fill(pager, params.get('cursor') ? h('a', {href: link(params, null)}, 'First page') : null,
        page.nextCursor ? h('a', {href: link(params, page.nextCursor), rel: 'next'}, 'Next page') : null);
  };
  return params.get('cursor') ? (load().catch(error => fill(body, h('tr', {}, h('td', {colspan: columns.length},
      `Error: ${error.message}`)))), () => {}) : every(2000, load);
}

function row(job, allTenants) {
  return h('tr', {'data-job': job.id},
      allTenants ? h('td', {'data-label': 'tenant'}, job.tenant) : null,
      h('td', {'data-label': 'job'}, h('a', {href: `#/jobs/${job.id}`, class: 'mono'}, job.id)),
      h('td', {'data-label': 'kind'}, job.kind),
      h('td', {'data-label': 'queue'}, job.queue),
      h('td', {'data-label': 'status'}, statusBadge(job.status)),
      h('td', {'data-label': 'attempt'}, `${job.attempt} / ${job.maxAttempts}`),
      h('td', {'data-label': 'requested'}, time(job.requestedAt)),
      h('td', {'data-label': 'finished'}, time(job.finishedAt)));
}

function link(params, cursor) {
  const next = new URLSearchParams();
  for (const name of FILTERS) {
    if (params.get(name)) next.set(name, params.get(name));
  }
  if (cursor) next.set('cursor', cursor);
  return `#/jobs?${next}`;
}

function filterForm(params, allTenants) {
  const status = h('select', {id: 'filter-status', name: 'status'},
      h('option', {value: ''}, 'any'),
      STATUSES.map(value => h('option', {value, selected: params.get('status') === value}, value)));
  const text = name => h('input', {id: `filter-${name}`, name, value: params.get(name) ?? '',
    autocomplete: 'off', spellcheck: 'false'});
  const inputs = [status, text('queue'), text('kind')];
  if (allTenants) inputs.push(text('tenant'));
  const field = (input, label) => h('span', {class: 'field'}, h('label', {for: input.id}, label), input);
  return h('form', {class: 'filters', role: 'search', 'aria-label': 'Filter jobs',
    onsubmit: event => {
      event.preventDefault();
      const chosen = new URLSearchParams();
      for (const input of inputs) {
        if (input.value.trim()) chosen.set(input.name, input.value.trim());
      }
      location.hash = `#/jobs?${chosen}`;
    }},
  inputs.map(input => field(input, input.name[0].toUpperCase() + input.name.slice(1))),
  h('button', {type: 'submit'}, 'Filter'));
}
