/** Header by which the server's outbound handler says that a script's `fetch` failed (never passed on from a remote answer). */
export const FETCH_ERROR_HEADER = 'x-quire-fetch-error';

/**
 * Evaluated before the script (imported first by the entry module): the script's `fetch` rejects with a
 * `TypeError` when the request could not be made (refused by the outbound guard, unreachable host,
 * time-out), as the Workers runtime does, instead of resolving with an error response.
 */
export const FETCH_MODULE = `
const nativeFetch = globalThis.fetch;
globalThis.fetch = async function fetch(input, init) {
  const response = await nativeFetch(input, init);
  const failure = response.headers.get('${FETCH_ERROR_HEADER}');
  if (failure !== null) throw new TypeError(failure);
  return response;
};
`;

/**
 * The entry module every script runs behind, inside workerd. It captures the script's `console`
 * output for the event's trace and returns the script's answer and that trace in one JSON envelope,
 * so the logs of a call can never be mixed with another call's (one call at a time per instance).
 */
export const WRAPPER_MODULE = `
import './quire-fetch.mjs';
import integration from './integration.mjs';
const LEVELS = { debug: 'debug', info: 'info', log: 'info', warn: 'warn', error: 'error' };
const MAX_LOGS = 200;
const MAX_MESSAGE = 4000;
function text(value) {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return value.stack || String(value);
  try { return JSON.stringify(value); } catch { return String(value); }
}
export default {
  async fetch(request, env, ctx) {
    const logs = [];
    const saved = {};
    for (const [name, level] of Object.entries(LEVELS)) {
      saved[name] = console[name];
      console[name] = (...args) => {
        if (logs.length < MAX_LOGS) logs.push({ level, message: args.map(text).join(' ').slice(0, MAX_MESSAGE), timestamp: new Date().toISOString() });
      };
    }
    try {
      const response = await integration.fetch(request, env, ctx);
      const bytes = new Uint8Array(await response.arrayBuffer());
      let binary = '';
      for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
      return Response.json({ status: response.status, headers: [...response.headers], body: btoa(binary), logs });
    } catch (error) {
      return Response.json({ error: text(error), logs });
    } finally {
      for (const name of Object.keys(LEVELS)) console[name] = saved[name];
    }
  },
};
`;
