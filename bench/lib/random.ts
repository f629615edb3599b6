import { createHash } from 'node:crypto';

/**
 * The bench scripts' one random generator: small, fast and seeded (sfc32). The same seed gives the
 * same draws, so the dataset (bench/dataset) and the follower's traffic are the same from run to
 * run. Node's crypto would be deterministic too, but far too slow for tens of millions of draws.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    const digest = createHash('sha256').update(seed).digest();
    this.a = digest.readUInt32LE(0);
    this.b = digest.readUInt32LE(4);
    this.c = digest.readUInt32LE(8);
    this.d = digest.readUInt32LE(12);
    for (let index = 0; index < 16; index += 1) this.next();
  }

  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** In [0, 1), with 53 random bits. */
  float(): number {
    return (this.next() * 2 ** 21 + (this.next() >>> 11)) / 2 ** 53;
  }

  below(n: number): number {
    return Math.floor(this.float() * n);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let index = 0; index < length; index += 4) {
      const word = this.next();
      for (let shift = 0; shift < 4 && index + shift < length; shift += 1)
        out[index + shift] = (word >>> (8 * shift)) & 0xff;
    }
    return out;
  }

  /** The same draw as `bytes(byteCount)`, written as lowercase hex. */
  hex(byteCount: number): string {
    let text = '';
    for (let index = 0; index < byteCount; index += 4) {
      const word = this.next();
      for (let shift = 0; shift < 4 && index + shift < byteCount; shift += 1)
        text += HEX[(word >>> (8 * shift)) & 0xff];
    }
    return text;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  shuffle<T>(items: T[]): T[] {
    for (let index = items.length - 1; index > 0; index -= 1) {
      const other = this.below(index + 1);
      [items[index], items[other]] = [items[other]!, items[index]!];
    }
    return items;
  }
}

/** A draw of one of `entries`, each as likely as its weight. */
export function weightedPicker<T>(entries: readonly (readonly [T, number])[]): (random: Random) => T {
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  return (random) => {
    let point = random.float() * total;
    for (const [value, weight] of entries) {
      point -= weight;
      if (point < 0) return value;
    }
    return entries[entries.length - 1]![0];
  };
}

const HEX = Array.from({ length: 256 }, (_unused, byte) => byte.toString(16).padStart(2, '0'));

/** Draws in [0, 1) from a Random on `seed`, for code that only needs floats. */
export function seededRandom(seed: string): () => number {
  const random = new Random(seed);
  return () => random.float();
}
