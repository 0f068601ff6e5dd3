import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { expressHttpServer } from './express-server.js';

describe('expressHttpServer', () => {
  const servers: { close(done: () => void): void }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((done) => s.close(() => done()))));
  });

  it('hands express requests and responses that already have its prototypes, and serves as express does', async () => {
    const app = express();
    app.get('/items/:id', (req, res) => {
      res.status(201).set('X-Seen', req.get('x-asked') ?? '').json({ id: req.params.id, path: req.path, query: req.query.q });
    });
    const server = expressHttpServer(app);
    servers.push(server);
    // Before express sees them: made with the app's prototypes, so its Object.setPrototypeOf changes nothing.
    const born: boolean[] = [];
    server.prependListener('request', (req, res) => born.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/items/42?q=x`, { headers: { 'x-asked': 'yes' } });
    expect([response.status, response.headers.get('x-seen'), await response.json()]).toEqual([201, 'yes', { id: '42', path: '/items/42', query: 'x' }]);
    expect(born).toEqual([true]);
    expect((await fetch(`http://127.0.0.1:${port}/nothing`)).status).toBe(404);
  });
});
