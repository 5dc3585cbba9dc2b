/**
 * Google's service-account key file (the JSON the Firebase console downloads) mapped to an FCM
 * provider's config: `project_id` → projectId, `client_email` → clientEmail, `private_key` →
 * privateKey. Nothing else of the file is kept.
 */

export interface FcmConfig {
  projectId: string;
  clientEmail: string;
  privateKey: string;
}

export type ServiceAccountResult = { ok: true; config: FcmConfig; name: string } | { ok: false; error: string };

const FIELDS = [
  ['project_id', 'projectId'],
  ['client_email', 'clientEmail'],
  ['private_key', 'privateKey'],
] as const;

export function parseServiceAccount(text: string): ServiceAccountResult {
  let json: unknown;
  try {
    json = JSON.parse(text.trim());
  } catch {
    return { ok: false, error: 'This is not valid JSON. Paste the whole service-account key file, from { to }.' };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { ok: false, error: 'The file must hold one JSON object (a service-account key).' };
  const file = json as Record<string, unknown>;
  if (file.type !== undefined && file.type !== 'service_account') {
    return { ok: false, error: `This is a "${String(file.type)}" file, not a service-account key: in the Firebase console, open Project settings → Service accounts → Generate new private key.` };
  }
  const missing = FIELDS.filter(([field]) => typeof file[field] !== 'string' || !(file[field] as string).trim()).map(([field]) => field);
  if (missing.length) return { ok: false, error: `The file has no ${missing.join(', ')}: is it a service-account key?` };
  // A key pasted through a shell or an env file sometimes arrives with its newlines escaped.
  const privateKey = (file.private_key as string).replace(/\\n/g, '\n').trim() + '\n';
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----[\s\S]+-----END (RSA )?PRIVATE KEY-----/.test(privateKey)) {
    return { ok: false, error: 'private_key is not a PEM private key: the whole text between its BEGIN and END PRIVATE KEY lines, those lines included.' };
  }
  const config: FcmConfig = { projectId: (file.project_id as string).trim(), clientEmail: (file.client_email as string).trim(), privateKey };
  return { ok: true, config, name: `FCM ${config.projectId}` };
}
