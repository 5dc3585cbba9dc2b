import type { RequestHandler } from 'express';
import express from 'express';

/** An error as body-parser makes it: `toAppError` maps it by its `type`. */
const bodyError = (type: string, message: string) => Object.assign(new Error(message), { type, status: 400, expose: true });

const FIRST_NON_WHITESPACE = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d]|$)/;

/** JSON.parse as body-parser's strict mode does it: an object or an array, else a 400. */
function parseStrict(text: string): unknown {
  const first = FIRST_NON_WHITESPACE.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw bodyError('entity.parse.failed', 'Unexpected token in JSON: the body must be an object or an array');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw bodyError('entity.parse.failed', (err as Error).message);
  }
}

/**
 * express.json, with the request every send makes read without it: `Content-Type: application/json`
 * (charset utf-8 or none), a `Content-Length` within the limit, no `Content-Encoding`. body-parser
 * spent about 7 % of the API's CPU on a send (raw-body's listeners and its type, charset and encoding
 * checks); anything else (compressed, chunked, other charsets, empty, too large) still goes through it,
 * with its answers.
 */
export function jsonBody(maxBytes: number): RequestHandler {
  const parser = express.json({ limit: maxBytes });
  return (req, res, next) => {
    const type = req.headers['content-type'];
    const length = Number(req.headers['content-length']);
    const plain =
      (type === 'application/json' || type === 'application/json; charset=utf-8') &&
      length > 0 &&
      length <= maxBytes &&
      req.headers['content-encoding'] === undefined &&
      req.headers['transfer-encoding'] === undefined;
    if (!plain) return parser(req, res, next);

    const chunks: Buffer[] = [];
    let done = false;
    const finish = (err?: unknown) => {
      if (done) return;
      done = true;
      next(err);
    };
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('aborted', () => finish(bodyError('request.aborted', 'request aborted')));
    req.once('error', (err) => finish(Object.assign(err, { type: 'request.aborted', status: 400 })));
    req.once('end', () => {
      if (done) return;
      try {
        // Node's parser delivers exactly Content-Length bytes or ends with an error; a leading BOM is
        // dropped as body-parser's decoder drops it.
        const text = Buffer.concat(chunks, length).toString('utf8');
        req.body = parseStrict(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
        finish();
      } catch (err) {
        finish(err);
      }
    });
  };
}
