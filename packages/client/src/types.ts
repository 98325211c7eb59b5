import type { RetryOptions } from './retry.js';
import type { paths } from './schema.js';

/** The methods the API's operations use, as the OpenAPI document names them. */
export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** A method in either case (`'get'` or `'GET'`). */
export type AnyCaseMethod = Method | Uppercase<Method>;

/** Every path of the API that answers `M`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

/** The operation at path P and method M. */
export type Operation<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer O } ? O : never;

type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

/** `params` as the operation takes them: `{ path, query }`, required when one of them has a required parameter. */
type ParamsPart<O> = O extends { parameters: infer P }
  ? [RequiredKeys<P>] extends [never]
    ? { params?: Clean<P> }
    : { params: Clean<P> }
  : { params?: never };

/** The parameters without the parts the operation does not take (`header?: never`). */
type Clean<P> = { [K in keyof P as [NonNullable<P[K]>] extends [never] ? never : K]: P[K] };

/** The JSON body of an operation that takes one; absent for one that takes none, or takes another media type. */
type BodyPart<O> = O extends { requestBody: { content: { 'application/json': infer B } } }
  ? { body: B }
  : O extends { requestBody?: { content: { 'application/json': infer B } } }
    ? { body?: B }
    : { body?: never };

/** How the answer's body is read; by default from its Content-Type (JSON parsed, text as a string). */
export type ParseAs = 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';

/** What any call may also say. */
export interface CallOptions {
  /** Extra request headers; an `Authorization` given here wins over the client's credential. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Milliseconds to wait for the answer's headers, per attempt (the client's `timeoutMs` unless given; 0: no limit). */
  timeoutMs?: number;
  /** Overrides the client's retry options for this call; `false` never retries. */
  retry?: RetryOptions | false;
  parseAs?: ParseAs;
}

/** The second argument of `call(method, path, init)`: the operation's parameters and body, typed from the document. */
export type CallInit<P extends keyof paths, M extends Method> = ParamsPart<Operation<P, M>> & BodyPart<Operation<P, M>> & CallOptions;

type SuccessStatus = 200 | 201 | 202 | 204;

/** The body of an operation's success answer: its JSON, text for a text answer, undefined for 204. */
export type Answer<O> = O extends { responses: infer R }
  ? {
      [S in keyof R & SuccessStatus]: R[S] extends { content: infer C }
        ? C extends { 'application/json': infer J }
          ? J
          : string
        : undefined;
    }[keyof R & SuccessStatus]
  : never;

/** What `call` resolves to: the answer typed from the document, or as `parseAs` reads it. */
export type AnswerAs<O, Init> = Init extends { parseAs: infer A }
  ? A extends 'text'
    ? string
    : A extends 'blob'
      ? Blob
      : A extends 'arrayBuffer'
        ? ArrayBuffer
        : A extends 'stream'
          ? ReadableStream<Uint8Array>
          : Answer<O>
  : Answer<O>;

/** Paths whose POST takes a multipart form (a file upload). */
export type MultipartPath = {
  [P in PathsWith<'post'>]: Operation<P, 'post'> extends { requestBody: { content: { 'multipart/form-data': unknown } } } ? P : never;
}[PathsWith<'post'>];

/** Paths whose POST takes NDJSON (a stream upload). */
export type NdjsonPath = {
  [P in PathsWith<'post'>]: Operation<P, 'post'> extends { requestBody: { content: { 'application/x-ndjson': unknown } } } ? P : never;
}[PathsWith<'post'>];

/** The `params` (path and query) of a POST operation. */
export type PostParams<P extends PathsWith<'post'>> = ParamsPart<Operation<P, 'post'>>;

/** The success answer of a path's POST. */
export type PostAnswer<P extends PathsWith<'post'>> = Answer<Operation<P, 'post'>>;

/** The success answer of a path's GET. */
export type GetAnswer<P extends PathsWith<'get'>> = Answer<Operation<P, 'get'>>;

/** The JSON body of a path's POST. */
export type PostBody<P extends PathsWith<'post'>> = Operation<P, 'post'> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
