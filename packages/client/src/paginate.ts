/**
 * Pages of a listing, fetched one at a time as they are asked for. Iterating it yields the items of every page in
 * order (`for await (const record of pages)`); `pages()` yields whole pages (with their paging fields); `toArray()`
 * gathers every item. Each iteration starts from the first page again.
 */
export class Paginator<Item, Page> implements AsyncIterable<Item> {
  constructor(
    private readonly walk: () => AsyncGenerator<Page>,
    private readonly itemsOf: (page: Page) => readonly Item[],
  ) {}

  pages(): AsyncIterable<Page> {
    return { [Symbol.asyncIterator]: () => this.walk() };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item> {
    for await (const page of this.walk()) yield* this.itemsOf(page);
  }

  async toArray(): Promise<Item[]> {
    const all: Item[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/**
 * Cursor paging: the first page without a cursor, then each with the cursor the one before answered, until a page
 * says there is no more (`has_more` false or no cursor).
 */
export function cursorPages<Item, Page extends { cursor?: string | null; has_more?: boolean }>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  itemsOf: (page: Page) => readonly Item[],
): Paginator<Item, Page> {
  return new Paginator<Item, Page>(async function* () {
    let cursor: string | undefined;
    for (;;) {
      const page = await fetchPage(cursor);
      yield page;
      if (page.has_more === false || !page.cursor || page.cursor === cursor) return;
      cursor = page.cursor;
    }
  }, itemsOf);
}

/**
 * Offset paging: pages from offset `start` (0), each at the offset the one before covered up to (its offset plus the
 * `limit` it answered with), until a page says there is no more (`has_more` false). The offset counts positions, not
 * items received: a page the server thinned (the Open API leaves out records hidden since they were indexed) still
 * moves on by its limit, so no item is fetched twice.
 */
export function offsetPages<Item, Page>(
  fetchPage: (offset: number) => Promise<Page>,
  itemsOf: (page: Page) => readonly Item[],
  pagingOf: (page: Page) => { limit: number; has_more: boolean },
  start = 0,
): Paginator<Item, Page> {
  return new Paginator<Item, Page>(async function* () {
    let offset = start;
    for (;;) {
      const page = await fetchPage(offset);
      yield page;
      const { limit, has_more } = pagingOf(page);
      if (!has_more || limit < 1) return;
      offset += limit;
    }
  }, itemsOf);
}
