/**
 * The loopback receiver of `npm run bench:webhooks`, in a process of its own so that it does not
 * share the service's event loop: forked with an IPC channel, it takes `{ secret }`, answers
 * `{ port }`, verifies every delivery with the `standardwebhooks` package, answers 500 to half
 * the events (by id) on their first attempt, and answers `summary` with what it received.
 */
import { createHash } from 'node:crypto';
import { WebhookReceiver } from '../../test/support/webhook-receiver';

export interface ReceivedSummary {
  id: string;
  at: number;
  answered: number | string;
  verified: boolean;
}

const PATH = '/load';

async function main(): Promise<void> {
  const receiver = await WebhookReceiver.start();
  const attempts = new Map<string, number>();
  receiver.behave(PATH, (request) => {
    const seen = attempts.get(request.id) ?? 0;
    attempts.set(request.id, seen + 1);
    const half = createHash('sha256').update(request.id).digest()[0]! % 2 === 0;
    return half && seen === 0 ? 500 : 200;
  });
  process.on('message', (message: { secret?: string; summary?: boolean; stop?: boolean }) => {
    if (message.secret !== undefined) {
      receiver.secret(PATH, message.secret);
      process.send!({ ready: true });
    }
    if (message.summary === true) {
      const summary: ReceivedSummary[] = receiver.received.map((request) => ({
        id: request.id,
        at: request.at,
        answered: request.answered,
        verified: request.verified !== undefined,
      }));
      process.send!({ summary });
    }
    if (message.stop === true) void receiver.close().then(() => process.disconnect());
  });
  process.send!({ url: receiver.url(PATH) });
}

void main();
