import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One endpoint, declared once: what the owning service registers its handler from (platform's `serve`, which parses
 * the request before the handler runs), what a calling service calls it with (`ServiceClient.call`, which parses the
 * answer and maps every refusal through the one error catalogue), and what the endpoint documentation is written from.
 * Schemas are zod's; a part the endpoint does not take is absent.
 */
export interface Endpoint<
  Params extends Part = Part,
  Query extends Part = Part,
  Body extends Part = Part,
  Answer extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** Express-style, with `:name` for each path parameter (`/internal/records/:id`). */
  path: string;
  /** One line: what the endpoint is for. */
  summary: string;
  params?: Params;
  query?: Query;
  body?: Body;
  /** The success status (200 unless said) and its body. */
  status?: number;
  answer: Answer;
  /**
   * Refusals the endpoint answers on purpose (`{detail}` bodies) that a caller passes on to its own client as they are
   * (404 for a collection that does not exist, 409 for a conflict, …). Any other answer is the upstream failing: the
   * caller answers 503.
   */
  refusals?: readonly number[];
}

/** A request part's schema, or undefined for a part the endpoint does not take. */
type Part = z.ZodType | undefined;

/** Declares an endpoint, keeping its schemas' types for the handler and the caller. */
export function endpoint<P extends Part = undefined, Q extends Part = undefined, B extends Part = undefined, A extends z.ZodType = z.ZodType>(
  declaration: Endpoint<P, Q, B, A>,
): Endpoint<P, Q, B, A> {
  return declaration;
}

type In<K extends string, S> = [S] extends [z.ZodType] ? { [k in K]: z.input<S> } : object;
type Out<K extends string, S> = [S] extends [z.ZodType] ? { [k in K]: z.output<S> } : object;

/** What a caller sends: the declared parts, typed by their schemas' inputs. */
export type EndpointInput<E> = E extends Endpoint<infer P, infer Q, infer B, z.ZodType> ? In<'params', P> & In<'query', Q> & In<'body', B> : never;

/** What the handler receives once the request is parsed: the declared parts, typed by their schemas' outputs. */
export type EndpointRequest<E> = E extends Endpoint<infer P, infer Q, infer B, z.ZodType> ? Out<'params', P> & Out<'query', Q> & Out<'body', B> : never;

/** The success answer's body. */
export type EndpointAnswer<E> = E extends Endpoint<Part, Part, Part, infer A> ? z.output<A> : never;

/** The path with its parameters filled in, each encoded as one path segment. */
export function endpointPath(e: Pick<Endpoint, 'path'>, params: Record<string, unknown> = {}): string {
  return e.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null) throw new Error(`${e.path}: no value for :${name}`);
    return encodeURIComponent(String(value));
  });
}
