import { QueryFailedError } from 'typeorm';
import { safeErrorSerializer } from '../../src/common/logging/safe-error';

describe('safeErrorSerializer', () => {
  it('keeps a database error to its code and object names, without SQL, parameters or quoted values', () => {
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint "users_email_key"'), {
      code: '23505',
      severity: 'ERROR',
      detail: 'Key (email)=(secret@example.com) already exists.',
      table: 'users',
      constraint: 'users_email_key',
    });
    const error = new QueryFailedError('INSERT INTO users (email) VALUES ($1)', ['secret@example.com'], driverError);
    const out = JSON.stringify(safeErrorSerializer(error));
    expect(out).not.toContain('secret@example.com');
    expect(out).not.toContain('INSERT INTO');
    expect(safeErrorSerializer(error)).toMatchObject({ type: 'QueryFailedError', code: '23505', table: 'users', constraint: 'users_email_key' });
  });

  it('keeps the message of other errors, and serializes causes the same way', () => {
    const cause = new QueryFailedError('SELECT $1', ['planted'], Object.assign(new Error('bad "planted"'), { code: '22P02', severity: 'ERROR' }));
    const out = safeErrorSerializer(new Error('import failed', { cause })) as Record<string, unknown>;
    expect(out).toMatchObject({ type: 'Error', message: 'import failed', cause: { type: 'QueryFailedError', code: '22P02' } });
    expect(JSON.stringify(out)).not.toContain('planted');
  });
});
