import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { HttpDrain } from './http-drain';

/** A raw HTTP/1.1 client connection, so that keep-alive is exactly what it writes. */
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

  send(path: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  }

  /** The answers' status lines and `Connection` headers, in order, once `count` have arrived. */
  async answers(count: number): Promise<{ status: string; connection: string | undefined }[]> {
    while ((this.received.match(/^HTTP\/1\.1 /gm) ?? []).length < count) await once(this.socket, 'data');
    return this.received
      .split(/(?=^HTTP\/1\.1 )/m)
      .filter((part) => part.startsWith('HTTP/1.1 '))
      .map((part) => ({
        status: part.slice(0, part.indexOf('\r\n')),
        connection: /^connection: (.*)\r$/im.exec(part)?.[1],
      }));
  }

  destroy(): void {
    this.socket.destroy();
  }
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
