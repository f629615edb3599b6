import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';

/**
 * Nest's Express adapter, with the HTTP server making each request and response an Express one
 * from the start.
 *
 * Express gives every request and response its own prototype (`app.request`, `app.response`) with
 * `Object.setPrototypeOf` as it begins to handle them. V8 then carries those objects, and what they
 * reach, through its young-generation collections: under load nearly everything a request
 * allocated survives to the old generation, which grew by about 20 MB a second until a full
 * collection (bench/README, change 47). Here the server builds requests and responses from classes
 * whose prototypes are `app.request` and `app.response`, so Express's `setPrototypeOf` finds the
 * prototype already in place and changes nothing. The prototypes keep what Express put on them;
 * `app.request` and `app.response` name the same objects, so whatever is added to them later
 * reaches every request as before.
 */
export class ExpressServerAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options.httpsOptions !== undefined || options.forceCloseConnections === true) {
      super.initHttpServer(options);
      return;
    }
    const app = this.getInstance<Express>();
    class ExpressRequest extends IncomingMessage {}
    class ExpressResponse extends ServerResponse<ExpressRequest> {}
    app.request = asPrototypeOf(ExpressRequest, app.request);
    app.response = asPrototypeOf(ExpressResponse, app.response);
    this.setHttpServer(createServer({ IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse }, app));
  }
}

/** `type`'s prototype, made to stand where `prototype` stood: its properties and its own prototype. */
function asPrototypeOf<T extends object>(type: { prototype: object }, prototype: T): T {
  Object.setPrototypeOf(type.prototype, Object.getPrototypeOf(prototype) as object | null);
  Object.defineProperties(type.prototype, Object.getOwnPropertyDescriptors(prototype));
  return type.prototype as T;
}
