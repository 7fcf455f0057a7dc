// Small DOM helpers: elements are built with text nodes only (no innerHTML), so job data is never markup.

/** h('a', {href: '#/'}, 'text', child…): attributes named on* become listeners. */
export function h(tag, attributes = {}, ...children) {
  return build(document.createElement(tag), attributes, children);
}

/** As h, for an SVG element (svg, rect, title…): attributes such as width, x, y are not styles, so CSP allows them. */
export function svg(tag, attributes = {}, ...children) {
  return build(document.createElementNS('http://www.w3.org/2000/svg', tag), attributes, children);
}

function build(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of element. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** A timestamp as local time, the ISO value kept in a <time> element. */
export function time(iso) {
  if (!iso) return '–';
  return h('time', {datetime: iso, title: iso}, new Date(iso).toLocaleString());
}

/** Whole seconds from iso to now, 0 when iso lies ahead (the browser's clock is not the server's). */
function secondsSince(iso, now) {
  return Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
}

/** Seconds since iso, spelled short: 3s, 4m 2s, 1h 5m. */
export function age(iso, now = Date.now()) {
  if (!iso) return '–';
  const seconds = secondsSince(iso, now);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
  return `${Math.floor(seconds / 3600)}h ${Math.floor(seconds / 60) % 60}m`;
}

/** Seconds since iso in its largest whole unit, for a glance: 3 s, 4 min, 2 h, 5 d. */
export function roughAge(iso, now = Date.now()) {
  const seconds = secondsSince(iso, now);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

export function statusBadge(status) {
  return h('span', {class: `status status-${status}`}, status);
}

export const STATUSES = ['waiting', 'queued', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled'];
export const TERMINAL = new Set(['succeeded', 'failed', 'timed_out', 'cancelled']);

/** Shows an error (or a message) in the live status line. */
export function notify(message) {
  fill(document.getElementById('notice'), message instanceof Error ? `Error: ${message.message}` : message);
}

/** Empties the status line if it still says text (and not what came after it). */
export function clearNotice(text) {
  const notice = document.getElementById('notice');
  if (notice.textContent === text) fill(notice);
}

/**
 * Runs load now and every intervalMs; returns the stop function. An error goes to the status line
 * until the next load that works takes it away (before, it stayed there over fresh figures).
 */
export function every(intervalMs, load) {
  let timer = null;
  let stopped = false;
  let failure = null; // the status line this loop's last error put up
  const tick = async () => {
    try {
      await load();
      if (failure !== null) clearNotice(failure);
      failure = null;
    } catch (error) {
      if (stopped) return; // the page it was for is gone
      notify(error);
      failure = document.getElementById('notice').textContent;
    }
    if (!stopped) timer = setTimeout(tick, intervalMs);
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

export function heading(text, ...extra) {
  return h('h1', {}, text, ...extra);
}
