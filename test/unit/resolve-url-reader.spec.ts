import { instanceToPlain } from 'class-transformer';
import { createValidationPipe } from '../../src/common/errors/validation';
import { ResolveUrlDto } from '../../src/modules/published/dto/resolve-url.dto';
import { readResolveBody } from '../../src/modules/published/dto/resolve-url.reader';

/**
 * The resolution body's fast reader must never accept what the DTO refuses, nor read a body
 * differently: every body here gets the same answer (the same value, or the same 400 message) as
 * the global pipe gives with the DTO.
 */
const pipe = createValidationPipe();
const throughPipe = (body: unknown) => pipe.transform(body, { type: 'body', metatype: ResolveUrlDto, data: undefined });
const outcome = (run: () => Promise<unknown>) =>
  run().then(
    (value) => ({ ok: instanceToPlain(value) }),
    (error: { message?: string; getStatus?: () => number }) => ({ status: error.getStatus?.(), message: error.message }),
  );

const BODIES: unknown[] = [
  { url: 'https://docs.example.com/guide/install' },
  { url: 'http://readers.test/sites/org/docs', redirectOnError: true },
  { url: 'http://localhost:3000/a', visitor: { type: 'human', jwtToken: 'a.b.c', unsignedClaims: { plan: 'pro' } } },
  { url: 'https://docs.example.com/', visitor: {} },
  { url: 'not a url' },
  { url: 'ftp://docs.example.com/' },
  { url: `https://docs.example.com/${'a'.repeat(2100)}` },
  { url: 42 },
  { url: null },
  {},
  { url: 'https://docs.example.com/', extra: 1 },
  { url: 'https://docs.example.com/', redirectOnError: 'yes' },
  { url: 'https://docs.example.com/', redirectOnError: null },
  { url: 'https://docs.example.com/', visitor: null },
  { url: 'https://docs.example.com/', visitor: [] },
  { url: 'https://docs.example.com/', visitor: { type: 'robot' } },
  { url: 'https://docs.example.com/', visitor: { jwtToken: 7 } },
  { url: 'https://docs.example.com/', visitor: { jwtToken: 'x'.repeat(9000) } },
  { url: 'https://docs.example.com/', visitor: { unsignedClaims: [1] } },
  { url: 'https://docs.example.com/', visitor: { other: true } },
  JSON.parse('{"url":"https://docs.example.com/","__proto__":{"x":1}}'),
  [],
  null,
  undefined,
  'https://docs.example.com/',
];

describe('readResolveBody', () => {
  it.each(BODIES.map((body) => [(JSON.stringify(body) ?? String(body)).slice(0, 100), body]))('answers %s as the global pipe does', async (_name, body) => {
    expect(await outcome(() => readResolveBody(body, pipe))).toEqual(await outcome(() => throughPipe(body)));
  });
});
