/** Orders rows by id: multi-record writes lock in this order, so concurrent ones do not deadlock. */
export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
