/** A bench's own requests to a server it started, outside the measured load. */

/** One GET: its status, its body, and its Link header with the host written `<host>`, for comparing servers. */
export async function fetchAnswer(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; link: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
  return {
    status: response.status,
    body: await response.text(),
    link: (response.headers.get('link') ?? '').replaceAll(`127.0.0.1:${port}`, '<host>'),
  };
}
