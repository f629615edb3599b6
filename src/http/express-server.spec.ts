import { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, Get, Module, Query, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import { ExpressServerAdapter } from './express-server';

@Controller()
class ProbeController {
  @Get('probe')
  probe(@Req() request: Request & { marker?: string }, @Query('q') q: string): object {
    return { q, ip: request.ip, marker: request.marker ?? null, accepts: request.accepts('json') };
  }

  @Get('redirect')
  redirect(@Res() response: Response): void {
    response.status(302).location('/probe').end();
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('ExpressServerAdapter', () => {
  let app: NestExpressApplication;
  let base: string;
  const arrivals: boolean[] = [];

  beforeAll(async () => {
    app = await NestFactory.create<NestExpressApplication>(ProbeModule, new ExpressServerAdapter(), { logger: false });
    const express = app.getHttpAdapter().getInstance();
    const server = app.getHttpServer();
    // Runs before Express sees the request: were they not made as Express's, Express would change their prototypes.
    server.prependListener('request', (request, response) => {
      arrivals.push(
        Object.getPrototypeOf(request) === express.request && Object.getPrototypeOf(response) === express.response,
      );
    });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => app.close());

  it('hands Express requests and responses that already have its prototypes', async () => {
    arrivals.length = 0;
    await fetch(`${base}/probe`);
    await fetch(`${base}/probe`);
    expect(arrivals).toEqual([true, true]);
  });

  it("keeps Express's request and response helpers, and what is added to them later", async () => {
    (app.getHttpAdapter().getInstance().request as Request & { marker?: string }).marker = 'added later';
    const answer = await fetch(`${base}/probe?q=x`, { headers: { accept: 'application/json' } });
    expect(await answer.json()).toEqual({ q: 'x', ip: '127.0.0.1', marker: 'added later', accepts: 'json' });
    const moved = await fetch(`${base}/redirect`, { redirect: 'manual' });
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe('/probe');
  });

  it('leaves a server Nest must build itself to Nest', async () => {
    const other = await NestFactory.create<NestExpressApplication>(ProbeModule, new ExpressServerAdapter(), {
      logger: false,
      forceCloseConnections: true,
    });
    try {
      const express = other.getHttpAdapter().getInstance();
      expect(express.request.constructor).toBe(IncomingMessage);
      expect(app.getHttpAdapter().getInstance().request.constructor).not.toBe(IncomingMessage);
    } finally {
      await other.close();
    }
  });
});
