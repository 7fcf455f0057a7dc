// The HTTP API as the dashboard calls it: a bearer token from sessionStorage when one is set; a 401
// shows the token form and repeats the call once a token is entered.
const TOKEN_KEY = 'skiplock.token';
let tokenWanted = null;

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code;
  }
}

function headers(extra = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? {...extra, Authorization: `Bearer ${token}`} : extra;
}

/** Resolves once the user entered a token; shared by every call that got a 401 meanwhile. */
function askForToken() {
  if (tokenWanted) return tokenWanted;
  const form = document.getElementById('token-form');
  const input = document.getElementById('token-input');
  tokenWanted = new Promise(resolve => {
    form.hidden = false;
    input.value = '';
    input.focus();
    form.addEventListener('submit', event => {
      event.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, input.value.trim());
      form.hidden = true;
      tokenWanted = null;
      resolve();
    }, {once: true});
  });
  return tokenWanted;
}

/** fetch with the token; a 401 asks for a token and tries again. */
export async function request(path, options = {}) {
  for (;;) {
    const response = await fetch(path, {...options, headers: headers(options.headers)});
    if (response.status !== 401) return response;
    sessionStorage.removeItem(TOKEN_KEY);
    await askForToken();
  }
}

/** A call answering JSON (or nothing, 204); any other status than 2xx throws ApiError. */
export async function api(path, options = {}) {
  const response = await request(path, options);
  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, errorBody(text));
  return text ? JSON.parse(text) : null;
}

/** An error's JSON body, or null for another body (a proxy's HTML page): the status still tells. */
function errorBody(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

export const post = path => api(path, {method: 'POST'});

/**
 * Follows /events/stream (SSE) through fetch, since EventSource cannot send a bearer token. Calls
 * onEvent with each event's JSON; after a dropped connection it resumes from the last id it saw,
 * until the stream ends with the job's terminal event or signal aborts. Starts after event lastId
 * when one is given; resolves to the last id seen (the server goes on past the terminal event of a
 * job retried since; one retried just after its stream ended is followed again by the caller).
 * onConnection(error) hears of each opening: null when it was answered, else why it failed (the
 * page says it is reconnecting, rather than look live while it is not).
 */
export async function followEvents(jobId, onEvent, signal, lastId = null, onConnection = () => {}) {
  while (!signal.aborted) {
    const extra = {Accept: 'text/event-stream'};
    if (lastId !== null) extra['Last-Event-ID'] = lastId;
    let ended = false;
    try {
      const response = await request(`/api/v1/jobs/${encodeURIComponent(jobId)}/events/stream`,
          {headers: extra, signal});
      if (!response.ok) throw new ApiError(response.status, null);
      onConnection(null);
      // lastId follows each event, so a connection dropped mid-stream resumes after the last one seen
      lastId = await readSse(response.body, signal, (id, data) => {
        onEvent(JSON.parse(data));
        if (id !== null) lastId = id;
      }, lastId);
      ended = true;
    } catch (error) {
      if (signal.aborted) return lastId;
      if (error instanceof ApiError && error.status === 404) throw error;
      onConnection(error);
    }
    if (ended) return lastId;
    await new Promise(resolve => setTimeout(resolve, 1000));
  }
  return lastId;
}

/** Reads SSE frames ("id:", "data:" lines, a blank line ends one); returns the last id seen. */
async function readSse(body, signal, onFrame, lastId) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const cancel = () => reader.cancel().catch(() => {});
  signal.addEventListener('abort', cancel, {once: true});
  try {
    return await readFrames(reader, onFrame, lastId);
  } finally {
    signal.removeEventListener('abort', cancel); // each reopening reads anew: the ended reader may go
  }
}

async function readFrames(reader, onFrame, lastId) {
  let buffer = '';
  let id = null;
  let data = [];
  for (;;) {
    const {value, done} = await reader.read();
    if (done) return lastId;
    buffer += value;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (data.length) onFrame(id, data.join('\n'));
        if (id !== null) lastId = id;
        id = null;
        data = [];
      } else if (line.startsWith('id:')) {
        id = line.slice(3).trim();
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
    }
  }
}

/** Downloads a file the API serves, with the token (a plain link cannot send one). */
export async function download(path, filename) {
  const response = await request(path);
  if (!response.ok) throw new ApiError(response.status, null);
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement('a'), {href: url, download: filename});
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
