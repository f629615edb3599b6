import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { HttpDrain } from './http-drain';

/** A raw HTTP/1.1 client connection, so that keep-alive and pipelining are exactly what it writes. */
class RawConnection {
  private received = '';
  readonly closed: Promise<void>;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (this.received += chunk));
    this.closed = once(socket, 'close').then(() => undefined);
  }

  static async open(port: number): Promise<RawConnection> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return new RawConnection(socket);
  }

  /** The requests at once, pipelined when more than one. */
  send(...paths: string[]): void {
    this.socket.write(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`).join(''));
  }

  /**
   * The answers' status lines and `Connection` headers, in order, once `count` have arrived or the
   * connection has closed. (A body without a line end runs into the next answer's status line.)
   */
  async answers(count: number): Promise<{ status: string; connection: string | undefined }[]> {
    let closed = false;
    void this.closed.then(() => (closed = true));
    const parts = () => this.received.split('HTTP/1.1 ').slice(1);
    while (!closed && parts().length < count) await Promise.race([once(this.socket, 'data'), this.closed]);
    return parts().map((part) => ({
      status: `HTTP/1.1 ${part.slice(0, part.indexOf('\r\n'))}`,
      connection: /^connection: (.*)\r$/im.exec(part)?.[1],
    }));
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Which answers close their connection; each must be a 200. */
function closingAnswers(answers: { status: string; connection: string | undefined }[]): boolean[] {
  for (const answer of answers) expect(answer.status).toBe('HTTP/1.1 200 OK');
  return answers.map((answer) => answer.connection === 'close');
}

describe('HttpDrain', () => {
  let server: Server;
  let drain: HttpDrain;
  let port: number;
  const hanging: (() => void)[] = [];

  beforeEach(async () => {
    server = createServer((request, response) => {
      const answer = () => response.end(request.url);
      if (request.url === '/slow') setTimeout(answer, 150);
      else if (request.url === '/hang') hanging.push(answer);
      else answer();
    });
    drain = new HttpDrain(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    for (const answer of hanging.splice(0)) answer();
    server.closeAllConnections();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  });

  it('answers the requests under way with Connection: close and closes every connection, idle ones too', async () => {
    const idle = await Promise.all([1, 2, 3].map(() => RawConnection.open(port)));
    for (const connection of idle) connection.send('/fast');
    await Promise.all(idle.map((connection) => connection.answers(1)));
    const busy = await RawConnection.open(port);
    busy.send('/slow');
    await new Promise((resolve) => setTimeout(resolve, 20));

    const result = await drain.drain(5_000);

    expect(result).toEqual({ cut: 0 });
    await Promise.all([...idle, busy].map((connection) => connection.closed));
    expect(await busy.answers(1)).toEqual([{ status: 'HTTP/1.1 200 OK', connection: 'close' }]);
    for (const connection of idle)
      expect(await connection.answers(1)).toEqual([{ status: 'HTTP/1.1 200 OK', connection: 'keep-alive' }]);
    expect(server.listening).toBe(false);
  });

  it('answers requests pipelined on one connection, the last with Connection: close', async () => {
    const connection = await RawConnection.open(port);
    // Both answered after the drain begins: only the second may close the connection.
    connection.send('/slow', '/slow');
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(await drain.drain(5_000)).toEqual({ cut: 0 });
    await connection.closed;
    expect(closingAnswers(await connection.answers(2))).toEqual([false, true]);
  });

  it('answers a request pipelined after the drain began, and closes the connection after it instead', async () => {
    const connection = await RawConnection.open(port);
    connection.send('/slow');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const drained = drain.drain(5_000);
    // Once the server stops listening the drain has begun: the first answer is to close the connection.
    while (server.listening) await new Promise((resolve) => setImmediate(resolve));
    connection.send('/slow');

    expect(await drained).toEqual({ cut: 0 });
    await connection.closed;
    expect(closingAnswers(await connection.answers(2))).toEqual([false, true]);
  });

  it('keeps track of connections that close before the drain', async () => {
    const connections = await Promise.all([0, 1, 2, 3].map(() => RawConnection.open(port)));
    for (const connection of connections) connection.send('/fast');
    await Promise.all(connections.map((connection) => connection.answers(1)));
    // The first goes: the last one open takes its place, and closes later from there.
    connections[0]!.destroy();
    await connections[0]!.closed;
    connections[1]!.send('/hang');
    await new Promise((resolve) => setTimeout(resolve, 20));

    const result = await drain.drain(2_000);

    // The two idle ones are closed after their grace; the one whose request never ends is cut.
    expect(result).toEqual({ cut: 1 });
    await Promise.all(connections.slice(1).map((connection) => connection.closed));
  });
});
