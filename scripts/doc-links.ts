import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** A link in a Markdown file that leads nowhere: a missing file, or an anchor no heading has. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/**
 * GitHub's anchor for a heading: lowercase, punctuation other than `-` and `_` dropped, spaces as
 * `-`; a repeated heading gets `-1`, `-2`, … in order.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (heading === null) continue;
    const base = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The relative links of a Markdown file (inline `[text](target)` outside code) that lead nowhere. */
export function brokenLinks(file: string, read: (path: string) => string | undefined): BrokenLink[] {
  const text = read(file);
  if (text === undefined) return [];
  const broken: BrokenLink[] = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) return;
    const unquoted = line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
    for (const match of unquoted.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const destination = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      const content = read(destination);
      if (content === undefined) {
        if (!existsSync(destination)) broken.push({ file, line: index + 1, target, reason: 'no such file' });
        continue;
      }
      if (
        anchor !== undefined &&
        anchor !== '' &&
        destination.endsWith('.md') &&
        !headingAnchors(content).has(anchor)
      ) {
        broken.push({ file, line: index + 1, target, reason: `no heading with the anchor #${anchor}` });
      }
    }
  });
  return broken;
}

/** Every Markdown file of the project (node_modules, dist and git's own folder left out). */
export function markdownFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder)) {
      if (['node_modules', 'dist', 'coverage', '.git', 'data'].includes(entry)) continue;
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.md')) found.push(path);
    }
  };
  walk(root);
  return found.sort();
}

function main(): void {
  const root = resolve(__dirname, '..');
  const read = (path: string): string | undefined => {
    try {
      return statSync(path).isFile() ? readFileSync(path, 'utf8') : undefined;
    } catch {
      return undefined;
    }
  };
  const files = markdownFiles(root);
  const broken = files.flatMap((file) => brokenLinks(file, read));
  for (const link of broken) {
    process.stderr.write(`${relative(root, link.file)}:${link.line}: ${link.target}: ${link.reason}\n`);
  }
  if (broken.length > 0) process.exitCode = 1;
  else process.stdout.write(`${files.length} Markdown files, every relative link and anchor found\n`);
}

if (require.main === module) main();
