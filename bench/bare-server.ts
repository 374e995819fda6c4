import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { Pool } from 'pg';

/**
 * The baseline: the least a server can do to answer `GET /v1/user` — node:http, one pg query for
 * the token's user, JSON out. Quire's figures are read against this one's, on the same database.
 * Its queries are named prepared statements (parsed and planned once per connection), as a
 * hand-written server would run them.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const publicUrl = process.env.PUBLIC_URL ?? 'http://localhost';

const server = createServer(async (req, res) => {
  const secret = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  if (!secret) return send(401, { error: { code: 401, message: 'Unauthorized' } });
  const hash = createHash('sha256').update(secret).digest('hex');
  const { rows } = await pool.query({
    name: 'user-by-token',
    text: `SELECT u.id, u.display_name, u.email, u.photo_url FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`,
    values: [hash],
  });
  const user = rows[0];
  if (!user) return send(401, { error: { code: 401, message: 'Unauthorized' } });
  if (req.url === '/v1/user') {
    return send(200, {
      object: 'user',
      id: user.id,
      displayName: user.display_name,
      email: user.email,
      urls: { location: `${publicUrl}/v1/users/${user.id}` },
    });
  }
  const space = /^\/v1\/spaces\/([^/?]+)$/.exec(req.url ?? '')?.[1];
  if (space) {
    const found = await pool.query({
      name: 'space-for-user',
      text: `SELECT s.* FROM spaces s JOIN memberships m ON m.organization_id = s.organization_id AND m.user_id = $2 WHERE s.id = $1 AND s.deleted_at IS NULL`,
      values: [space, user.id],
    });
    if (!found.rows[0]) return send(404, { error: { code: 404, message: 'Not found' } });
    const s = found.rows[0];
    return send(200, {
      object: 'space',
      id: s.id,
      title: s.title,
      emoji: s.emoji,
      visibility: s.visibility,
      organization: s.organization_id,
      revision: s.revision_id,
    });
  }
  send(404, { error: { code: 404, message: 'Not found' } });
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
