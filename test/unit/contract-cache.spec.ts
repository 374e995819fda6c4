/**
 * The contract checks (test/support/contract.ts) keep compiled validators on disk as code: a validator read back
 * from that cache must refuse what the freshly compiled one refuses, with the same problems.
 */
type Contract = typeof import('../support/contract');

const fresh = (): Contract => {
  let contract: Contract | undefined;
  jest.isolateModules(() => (contract = require('../support/contract') as Contract));
  return contract!;
};
const problems = (check: () => void): string => {
  try {
    check();
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('contract validators read from the cache', () => {
  it.each([
    ['Space', { object: 'space' }, /must have required property 'id'/],
    ['Emoji', 'not an emoji', /must match format "emoji"/], // the description's own format
    ['Email', 'nobody', /must match format "email"/], // one of ajv-formats'
  ])('refuse what the compiled ones refuse (%s)', (schema, value, problem) => {
    const first = problems(() => fresh().expectPublicSchema(value, schema));
    const second = problems(() => fresh().expectPublicSchema(value, schema));
    expect(first).toMatch(problem);
    expect(second).toBe(first);
    expect(problems(() => fresh().expectPublicSchema('1f389', 'Emoji'))).toBe('accepted');
  });

  it('refuses a schema the public description does not have', () => {
    expect(problems(() => fresh().expectPublicSchema({}, 'NoSuchSchema'))).toMatch(/NoSuchSchema is not a schema/);
  });
});
