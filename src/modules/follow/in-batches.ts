/** `read` of every item, `size` at once (each batch after the one before it), answers in the items' order. */
export async function inBatches<T, R>(items: readonly T[], size: number, read: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (let start = 0; start < items.length; start += size)
    answers.push(...(await Promise.all(items.slice(start, start + size).map(read))));
  return answers;
}
