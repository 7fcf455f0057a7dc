// The dashboard's router: #/ overview, #/jobs?status=&queue=&kind=&tenant=&cursor=, #/jobs/{id}, #/workers.
// Each view renders into <main> and returns a function that stops its timers and streams.
import {fill} from './dom.js';
import {overview} from './overview.js';
import {jobs} from './jobs.js';
import {job} from './job.js';
import {workers} from './workers.js';

const main = document.getElementById('view');
let stop = () => {};

function route() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query);
  const parts = path.split('/').filter(Boolean);
  stop();
  fill(document.getElementById('notice'));
  if (parts[0] === 'jobs' && parts[1]) return show('jobs', job, decoded(parts[1]));
  if (parts[0] === 'jobs') return show('jobs', jobs, params);
  if (parts[0] === 'workers') return show('workers', workers, params);
  return show('overview', overview, params);
}

/** A hash typed by hand may hold a bare '%': the job's page then says the API's answer. */
function decoded(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function show(section, view, argument) {
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  fill(main);
  const cleanup = view(main, argument);
  stop = typeof cleanup === 'function' ? cleanup : () => {};
  const heading = main.querySelector('h1');
  if (heading && document.activeElement !== document.getElementById('token-input')) {
    heading.tabIndex = -1;
    heading.focus({preventScroll: true});
  }
}

window.addEventListener('hashchange', route);
route();
