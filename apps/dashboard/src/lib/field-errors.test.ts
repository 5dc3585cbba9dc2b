import { createInviteBody } from '@herald/schemas';
import { answeredErrors, errorsByField } from './field-errors';

describe('field errors', () => {
  it("puts each of a schema's messages under its top-level field, the first one where a field has several", () => {
    const result = createInviteBody.safeParse({ email: 'grace at example', projectId: 'nope', role: 'owner' });
    expect(result.success).toBe(false);
    expect(errorsByField(result.error!.issues)).toEqual({
      email: 'email must be a valid e-mail address',
      projectId: 'projectId must be a valid UUID',
      role: 'role must be team_member or project_admin',
    });
    expect(errorsByField([{ path: ['data', 'google.x'], message: 'first' }, { path: ['data'], message: 'second' }])).toEqual({ data: 'first' });
  });

  it("reads an API answer's details by their dotted paths, and nothing from any other error", () => {
    expect(answeredErrors({ status: 400, details: [{ path: 'recipients.3.userId', message: 'userId is required' }] })).toEqual({ recipients: 'userId is required' });
    expect(answeredErrors(new Error('Herald could not be reached'))).toEqual({});
    expect(answeredErrors(null)).toEqual({});
  });
});
