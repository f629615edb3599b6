import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** How long a connection may stay without a request once the server has stopped listening. */
const IDLE_GRACE_MS = 500;
/** The longest time spent accepting what the kernel had queued when draining began. */
const ACCEPT_WINDOW_MS = 1000;

interface ConnectionState {
  socket: Socket;
  /** Its place in `HttpDrain.open`. */
  index: number;
  /**
   * The responses of requests read from this connection and not yet answered, oldest first (more
   * than one only for pipelined requests).
   */
  responses: ServerResponse[];
  idleTimer: NodeJS.Timeout | undefined;
}

/** Each open connection's state, kept on its socket: no table to find it in (see HttpDrain). */
const STATE = Symbol('HttpDrain connection');
type TrackedSocket = Socket & { [STATE]?: ConnectionState };

export interface DrainResult {
  /** Connections still open when the time ran out, closed with whatever they were doing. */
  cut: number;
}

/**
 * Lets an HTTP server stop without dropping a request it has been sent:
 *
 * 1. It accepts the connections the kernel has already completed, then closes the listening
 *    socket. Closing it at once would reset those connections, with their requests.
 * 2. It answers every request received. The last answer of each connection carries `Connection:
 *    close` from then on, so that keep-alive clients go (their next request is refused, which a
 *    client can safely retry elsewhere); requests pipelined before it are answered first.
 * 3. It closes each connection once it has nothing left to answer. A connection without a request
 *    gets IDLE_GRACE_MS for one to arrive: Node's own `server.close()` closes such connections at
 *    once, and among them are connections accepted a moment ago whose request is not read yet.
 *
 * Connections still open when the time is up are closed as they are.
 *
 * What it keeps per request and per connection lives in arrays and on the sockets, not in a
 * `Set`, `Map` or `WeakMap` that gains and loses an entry each time: once such a long-lived table
 * has been moved to V8's old generation, each table it rebuilds goes there too, and the one it
 * leaves behind still points to the entries it had, which young-generation collections then keep
 * until the next full collection. A `Set` of the responses under way had every request's objects
 * (the response, its request, their buffers and rows) copied into the old generation that way
 * (bench/README.md, change 72).
 */
export class HttpDrain {
  /** The open connections, in no order: when one closes, the last takes its place. */
  private readonly open: ConnectionState[] = [];
  private accepted = 0;
  private draining: Promise<DrainResult> | undefined;
  /** Set once the listening socket is closed: from then on connections are sent away. */
  private closing = false;
  private allClosed: (() => void) | undefined;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => this.track(socket));
    // Before the application's own listener, so the header is set before any answer is written.
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) =>
      this.onRequest(request, response),
    );
  }

  /** Stops accepting and waits up to `timeoutMs` in all for the open connections to finish. */
  drain(timeoutMs: number): Promise<DrainResult> {
    this.draining ??= this.run(performance.now() + timeoutMs);
    return this.draining;
  }

  private async run(deadline: number): Promise<DrainResult> {
    await this.stopAccepting(Math.min(deadline, performance.now() + ACCEPT_WINDOW_MS));
    this.closing = true;
    for (const state of this.open) {
      const last = state.responses[state.responses.length - 1];
      if (last === undefined) this.closeWhenIdle(state);
      else if (!last.headersSent) last.setHeader('Connection', 'close');
    }
    if (this.open.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (this.allClosed = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - performance.now())))),
      ]);
      clearTimeout(timer);
    }
    const cut = this.open.length;
    for (const state of [...this.open]) state.socket.destroy();
    return { cut };
  }

  /**
   * libuv accepts one connection per turn of the event loop, so the turns go on until one passes
   * without a new connection (or until `until`, should clients keep connecting). The listening
   * socket is then closed without `http.Server.close()`, which would also close the idle
   * connections (see above).
   */
  private async stopAccepting(until: number): Promise<void> {
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await turn();
    while (performance.now() < until) {
      const before = this.accepted;
      await turn();
      if (this.accepted === before) break;
    }
    if (this.server.listening) NetServer.prototype.close.call(this.server);
  }

  private track(socket: Socket): void {
    this.accepted += 1;
    const state: ConnectionState = { socket, index: this.open.length, responses: [], idleTimer: undefined };
    this.open.push(state);
    (socket as TrackedSocket)[STATE] = state;
    socket.once('close', () => {
      clearTimeout(state.idleTimer);
      const last = this.open.pop()!;
      if (last !== state) {
        this.open[state.index] = last;
        last.index = state.index;
      }
      if (this.open.length === 0) this.allClosed?.();
    });
  }

  private onRequest(request: IncomingMessage, response: ServerResponse): void {
    const state = (request.socket as TrackedSocket)[STATE];
    if (state === undefined) return;
    clearTimeout(state.idleTimer);
    if (this.closing) {
      // Only the connection's last answer closes it: one pipelined before it is answered first.
      const before = state.responses[state.responses.length - 1];
      if (before !== undefined && !before.headersSent) before.removeHeader('Connection');
      response.setHeader('Connection', 'close');
    }
    state.responses.push(response);
    response.once('close', () => {
      const index = state.responses.indexOf(response);
      if (index >= 0) state.responses.splice(index, 1);
      if (this.closing && state.responses.length === 0) this.closeWhenIdle(state);
    });
  }

  private closeWhenIdle(state: ConnectionState): void {
    clearTimeout(state.idleTimer);
    state.idleTimer = setTimeout(() => {
      if (state.responses.length === 0) state.socket.destroy();
    }, IDLE_GRACE_MS);
  }
}
