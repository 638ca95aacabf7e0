/** Query parameters whose values are secrets, compared without case, `-` or `_` (`code` and `state`: the OAuth2 callback's one-time values). */
const SECRET_PARAMS = new Set([
  'apikey',
  'key',
  'token',
  'accesstoken',
  'password',
  'secret',
  'authorization',
  'code',
  'state',
]);

/** An API key anywhere in a URL, in plain or percent-encoded text around it. */
const API_KEY = /csk_(?:live|test)_[A-Za-z0-9_-]*/g;

const REDACTED = '[REDACTED]';

/**
 * A request URL fit for the access log: the values of query parameters that
 * usually carry credentials are replaced, and so is anything shaped like a
 * Rota API key, wherever it appears (path, other parameters, fragments).
 * Clients do send keys in query strings by mistake, and a log file is read by
 * far more people than the key's owner.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  let out = url;
  if (q >= 0) {
    const query = url
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq < 0) return pair;
        let name: string;
        try {
          name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
        } catch {
          name = pair.slice(0, eq);
        }
        return SECRET_PARAMS.has(name.toLowerCase().replace(/[-_]/g, '')) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
      })
      .join('&');
    out = `${url.slice(0, q)}?${query}`;
  }
  return out.replace(API_KEY, REDACTED);
}
