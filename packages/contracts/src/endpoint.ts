import type { z } from 'zod';
import type { Scope, ServiceName } from './service-names';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a caller must present to use a public endpoint. */
export type Access =
  /** No credential; the gateway forwards the request with an anonymous identity. */
  | { kind: 'none' }
  /** An API key (or, in development, X-Tenant-Id); with a scope unless any valid key will do. */
  | { kind: 'key'; scope?: Scope }
  /** A portal sign-in token. */
  | { kind: 'portal' };

/** The version roots the gateway serves endpoints under; MCP's `/mcp` and the gateway's own `/health` have none. */
export type ApiRoot = '/api/v1' | '/open/v1' | '';

/** How callers outside the system reach an endpoint through the gateway. */
export interface Exposure {
  /** The roots it answers under: the public path is a root followed by the endpoint's path. */
  roots: readonly ApiRoot[];
  access: Access;
}

/** Under /api/v1 with an API key holding `scope` (any valid key when none is named). */
export const withKey = (scope?: Scope): Exposure => ({ roots: ['/api/v1'], access: { kind: 'key', scope } });
/** Under /api/v1 with a portal sign-in token. */
export const withPortalToken: Exposure = { roots: ['/api/v1'], access: { kind: 'portal' } };
/** Under the given roots with no credential. */
export const withoutCredential = (...roots: ApiRoot[]): Exposure => ({ roots, access: { kind: 'none' } });

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
  /** The service that answers it. */
  service: ServiceName;
  method: HttpMethod;
  /** The path the service answers, Express-style, with `:name` for each path parameter (`/internal/records/:id`). */
  path: string;
  /** One line: what the endpoint is for. */
  summary: string;
  /** Present for an endpoint the gateway forwards to its service (or serves itself); absent for an internal one. */
  exposed?: Exposure;
  /** Request headers the endpoint reads (a signature, an idempotency key), for its reference; the handler checks them. */
  headers?: z.ZodObject;
  /** The request body's media types when it is not JSON (`multipart/form-data`, `application/x-ndjson`). */
  consumes?: readonly string[];
  /** The success answer's media types when it is not JSON (`text/csv`, `text/plain`). */
  produces?: readonly string[];
  params?: Params;
  query?: Query;
  body?: Body;
  /** A request body as a caller would send one, shown in the reference; it validates against `body` (a test parses each). */
  example?: Body extends z.ZodType ? z.input<Body> : never;
  /** The success status (200 unless said) and its body. */
  status?: number;
  answer: Answer;
  /**
   * Refusals the endpoint answers on purpose (`{detail}` bodies) that a caller passes on to its own client as they are
   * (404 for a collection that does not exist, 409 for a conflict, …). Any other answer is the upstream failing: the
   * caller answers 503.
   */
  refusals?: readonly number[];
  /**
   * Answers of other statuses the endpoint gives on purpose, each with its own body (none when absent): a second
   * success (202 for MCP's notifications), or refusals that are not `{detail}` (JSON-RPC errors). They are written last
   * in the reference, over what access and input imply.
   */
  otherAnswers?: Readonly<Record<number, OtherAnswer>>;
}

/** One answer of `otherAnswers`: what it means, its JSON body (none when absent) and the headers it carries. */
export interface OtherAnswer {
  description: string;
  answer?: z.ZodType;
  /** Response headers of this answer, by name: required ones are always sent; a string unless a schema says more. */
  headers?: Readonly<Record<string, { description: string; required?: boolean; schema?: z.ZodType }>>;
}

/** A request part's schema, or undefined for a part the endpoint does not take. */
type Part = z.ZodType | undefined;

/** The request parts a declaration names, as present (not optional) on what endpoint() returns. */
type Declared<P, Q, B> = ([P] extends [z.ZodType] ? { params: P } : object) &
  ([Q] extends [z.ZodType] ? { query: Q } : object) &
  ([B] extends [z.ZodType] ? { body: B } : object);

/** Declares an endpoint, keeping its schemas' types for the handler and the caller. */
export function endpoint<P extends Part = undefined, Q extends Part = undefined, B extends Part = undefined, A extends z.ZodType = z.ZodType>(
  declaration: Endpoint<P, Q, B, A>,
): Endpoint<P, Q, B, A> & Declared<P, Q, B> {
  return declaration as Endpoint<P, Q, B, A> & Declared<P, Q, B>;
}

type In<K extends string, S> = [S] extends [z.ZodType] ? { [k in K]: z.input<S> } : object;
type Out<K extends string, S> = [S] extends [z.ZodType] ? { [k in K]: z.output<S> } : object;

/** What a caller sends: the declared parts, typed by their schemas' inputs. */
export type EndpointInput<E> = E extends Endpoint<infer P, infer Q, infer B, z.ZodType> ? In<'params', P> & In<'query', Q> & In<'body', B> : never;

/** What the handler receives once the request is parsed: the declared parts, typed by their schemas' outputs. */
export type EndpointRequest<E> = E extends Endpoint<infer P, infer Q, infer B, z.ZodType> ? Out<'params', P> & Out<'query', Q> & Out<'body', B> : never;

/** The success answer's body. */
export type EndpointAnswer<E> = E extends Endpoint<Part, Part, Part, infer A> ? z.output<A> : never;

/** The paths a caller outside the system sends the endpoint's requests to; none for an internal endpoint. */
export function publicPaths(e: Pick<Endpoint, 'path' | 'exposed'>): string[] {
  return (e.exposed?.roots ?? []).map((root) => (root !== '' && e.path === '/' ? root : `${root}${e.path}`));
}

/** The path with its parameters filled in, each encoded as one path segment. */
export function endpointPath(e: Pick<Endpoint, 'path'>, params: Record<string, unknown> = {}): string {
  return e.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null) throw new Error(`${e.path}: no value for :${name}`);
    return encodeURIComponent(String(value));
  });
}
