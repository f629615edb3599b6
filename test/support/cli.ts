import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { nodeArgs } from './build';
import { npmCommand } from './server-process';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliReading {
  /**
   * Reads nothing until this many milliseconds after the command's first output, or until it
   * exits, whichever comes first, as a reader busy elsewhere would. Meanwhile the command's writes
   * fill the pipe and wait in its own process: output a command abandons by exiting early is lost.
   */
  readAfterMs?: number;
  /** Closes stdout after its first chunk, as `| head -1` does; `stdout` holds that chunk. */
  closeStdoutEarly?: boolean;
  /** Settings of the command's environment beside DATABASE_URL (RPC_URL_<CHAIN>, say). */
  env?: Record<string, string>;
}

const ROOT = join(__dirname, '..', '..');

/**
 * Runs the command line as `npm run --silent cli -- …` would, against the given database: the
 * compiled command line of this run (test/support/build.ts), in a process of its own.
 */
export function runCli(
  databaseUrl: string,
  args: string[],
  input?: string,
  options: CliReading = {},
): Promise<CliResult> {
  return runCommand(process.execPath, [...nodeArgs('src/cli/main'), ...args], databaseUrl, input, options);
}

/** Runs `npm run --silent cli -- …` itself: the path a user takes, the sources compiled on start. */
export function runNpmCli(databaseUrl: string, args: string[], input?: string): Promise<CliResult> {
  const [file, npmArgs] = npmCommand(['run', '--silent', 'cli', '--', ...args]);
  return runCommand(file, npmArgs, databaseUrl, input, {});
}

function runCommand(
  file: string,
  argv: string[],
  databaseUrl: string,
  input: string | undefined,
  options: CliReading,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, API_KEYS: '', LOG_LEVEL: 'silent', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    let reading = false;
    const read = () => {
      if (reading) return;
      reading = true;
      clearTimeout(pause);
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        if (options.closeStdoutEarly) child.stdout.destroy();
      });
      child.stderr.on('data', (chunk: string) => (stderr += chunk));
    };
    let pause: NodeJS.Timeout | undefined;
    if (options.readAfterMs === undefined) {
      read();
    } else {
      const delay = options.readAfterMs;
      // 'readable' only reports that output arrived; nothing is consumed until read() adds 'data' listeners.
      const startPause = () => (pause ??= setTimeout(read, delay));
      child.stdout.once('readable', startPause);
      child.stderr.once('readable', startPause);
      child.once('exit', read);
    }
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
