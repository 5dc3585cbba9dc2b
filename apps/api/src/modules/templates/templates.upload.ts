import multer from 'multer';
import { AppError } from '@herald/core';
import type { Upload } from '../../http/define-route';
import { checkInput } from '../../http/input-guard';
import { IMPORT_MAX_BYTES } from './templates.schema';

const FILE_FIELD = 'file';

const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 20, parts: 25, fieldSize: 64 * 1024 },
  // Refused before a byte of the file is buffered (a 415 without reading the upload).
  fileFilter: (_req, file, cb) => {
    const type = file.mimetype.split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') return cb(new AppError(415, `The import file must have the MIME type application/json (got ${type || 'none'})`));
    cb(null, true);
  },
}).single(FILE_FIELD);

/** A 400 about the upload's file part, with the part named in `details` as a validation error's field is. */
const fileError = (message: string) => AppError.badRequest(message, [{ path: FILE_FIELD, message }]);

/** Multer's errors as docs/api.md#errors has them: an oversized file is 413, everything else malformed is 400. */
function translate(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof multer.MulterError) {
    switch (err.code) {
      case 'LIMIT_FILE_SIZE':
        return new AppError(413, `The import file may be at most ${IMPORT_MAX_BYTES} bytes (1 MiB)`);
      case 'LIMIT_UNEXPECTED_FILE':
      case 'LIMIT_FILE_COUNT':
        return fileError(`Send exactly one file, in the part "${FILE_FIELD}"${err.field && err.field !== FILE_FIELD ? ` (got "${err.field}")` : ''}`);
      default:
        return AppError.badRequest(`Malformed multipart body: ${err.message}`);
    }
  }
  // busboy: a broken boundary, a truncated body, malformed part headers.
  return AppError.badRequest(`Malformed multipart body: ${(err as Error)?.message ?? 'unreadable'}`);
}

/**
 * The import's export file: the `file` part of a multipart/form-data upload (memory, at most 1 MiB),
 * parsed as JSON; the service checks its shape.
 */
export const importFile: Upload<unknown> = {
  receive: (req, res) =>
    new Promise((resolve, reject) => {
      if (!req.is('multipart/form-data')) {
        return reject(new AppError(415, `Content-Type must be multipart/form-data with the export file in the part "${FILE_FIELD}"`));
      }
      upload(req, res, (err?: unknown) => (err ? reject(translate(err)) : resolve()));
    }),

  read(req) {
    const file = req.file;
    if (!file) throw fileError(`Missing the file part "${FILE_FIELD}" (a JSON file exported by GET /push-templates/export/{projectId})`);
    const text = file.buffer.toString('utf8').replace(/^\uFEFF/, '');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw fileError('The import file is not valid JSON');
    }
    checkInput(parsed, 'import file');
    return parsed;
  },

  requestBody: {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: [FILE_FIELD],
          properties: { [FILE_FIELD]: { type: 'string', contentMediaType: 'application/json', description: 'The export file (MIME type application/json)' } },
        },
        encoding: { [FILE_FIELD]: { contentType: 'application/json' } },
      },
    },
  },
};
