/** What replaces the credentials (`user:password`) of a URL. */
export const REDACTED_USERINFO = '[redacted]';

/**
 * Whether a character ends the authority (`user:password@host:port`) of a URL: `/ ? #` (RFC 3986), `\\` (a path
 * separator to WHATWG URL parsers), whitespace and control characters, and `"` (the end of a JSON string, as in a log
 * line). Anything else, `< > { | } \``, may sit in a password that URL parsers accept, so it is redacted with it.
 */
function endsAuthority(code: number): boolean {
  return (
    code <= 0x20 || // control characters and space
    code === 0x7f ||
    code === 0x2f || // /
    code === 0x3f || // ?
    code === 0x23 || // #
    code === 0x22 || // "
    code === 0x5c // \
  );
}

/**
 * `value` with the credentials of every URL in it replaced: `http://user:secret@host/x` becomes
 * `http://[redacted]@host/x`, wherever the URL sits in the text and whatever its scheme (`redis://`, `https://`...).
 * Text without `://` comes back as it is (the same string). Linear in the length of `value`: one pass, no regular
 * expression. An `@` in a path, query or fragment is left alone.
 */
export function redactUrl(value: string): string {
  let at = value.indexOf('://');
  if (at === -1) return value;
  let out = '';
  let copied = 0;
  let changed = false;
  while (at !== -1) {
    const start = at + 3;
    let end = start;
    let lastAt = -1;
    while (end < value.length) {
      const code = value.charCodeAt(end);
      if (endsAuthority(code)) break;
      if (code === 0x40) lastAt = end; // @
      end += 1;
    }
    if (lastAt !== -1) {
      out += value.slice(copied, start) + REDACTED_USERINFO;
      copied = lastAt;
      changed = true;
    }
    // The next URL's `://` may start on the last character of this authority ("a=http://h1,b=http://u:p@h2").
    at = value.indexOf('://', end > start ? end - 1 : start);
  }
  return changed ? out + value.slice(copied) : value;
}

/** Whether an http(s) URL carries credentials (`user@` or `user:password@`). */
export function urlHasUserinfo(value: string): boolean {
  if (!URL.canParse(value)) return redactUrl(value) !== value;
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}
