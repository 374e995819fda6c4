/**
 * The entry module every script runs behind, inside workerd. It captures the script's `console`
 * output for the event's trace and returns the script's answer and that trace in one JSON envelope,
 * so the logs of a call can never be mixed with another call's (one call at a time per instance).
 */
export const WRAPPER_MODULE = `
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
