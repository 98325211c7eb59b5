import { Core, type CoreRequest } from './http.js';
import { multipartBody, nameOf, type FileContent } from './multipart.js';
import { NdjsonRequests, type RecordSource } from './ndjson.js';
import { cursorPages, offsetPages, type Paginator } from './paginate.js';
import { TroveToolError } from './errors.js';
import { sleep, type RetryOptions } from './retry.js';
import type {
  AnswerAs,
  AnyCaseMethod,
  CallInit,
  CallOptions,
  GetAnswer,
  Method,
  MultipartPath,
  NdjsonPath,
  Operation,
  PathsWith,
  PostAnswer,
  PostBody,
  PostParams,
} from './types.js';
import type { ProgressListener } from './xhr.js';

export interface TroveClientOptions {
  /** The gateway's URL (`https://trove.example.com`, `http://localhost:8080`); paths start with /api/v1, /open/v1 or /mcp. */
  baseUrl: string;
  /** An API key, sent as `Authorization: Bearer <key>` to every route but the portal's and the Open API's. */
  apiKey?: string;
  /** A portal sign-in token, sent to the /api/v1/portal routes; signUp and signIn set it. */
  portalToken?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Retries of refused requests (429, 503); `false` never retries. See RetryOptions for what is retried. */
  retry?: RetryOptions | false;
  /** Milliseconds to wait for an answer's headers, per attempt (default 60,000; 0: no limit). Uploads wait without limit unless given one. */
  timeoutMs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /**
   * Whether fetch can send a body as a stream (default: true in Node, Deno and Bun, false in browsers, whose fetch
   * streams a body only over HTTP/2). Without it NDJSON requests are gathered before they are sent, and file upload
   * progress comes from XMLHttpRequest where there is one.
   */
  streamingRequests?: boolean;
}

/** A file to upload, with what the multipart form says about it. */
export interface FileUpload extends Omit<CallOptions, 'parseAs'> {
  /** The content: a Blob or File (in Node, `await fs.openAsBlob(path)` reads the file as it is sent), bytes, or text. */
  file: FileContent;
  /** The file's name (Trove keeps it as the records' source_name and reads the format from it); a File's own name unless given. */
  filename?: string;
  /** The file's media type; the Blob's, else from the file name's extension. */
  contentType?: string;
  /** Called as the body is sent: bytes sent and the body's size. Restarts from 0 if the upload is tried again. */
  onProgress?: ProgressListener;
  /**
   * Sends `Prefer: respond-async`: Trove answers 202 `{upload_id, status: 'processing'}` once the body has arrived and
   * writes the records after; `uploads.wait` (or `portal.uploads.wait`) follows them. A server that does not apply the
   * preference answers as without it, so the answer is either.
   */
  respondAsync?: boolean;
}

/** The form fields of a multipart operation besides the file (parse options such as name_column). */
type FormFields<P extends MultipartPath> =
  Operation<P, 'post'> extends { requestBody: { content: { 'multipart/form-data': infer F } } } ? Omit<F, 'file'> : never;

/** What a records stream upload did, over all its requests. */
export interface StreamSummary {
  /** Requests sent (each of at most `recordsPerRequest` records). */
  requests: number;
  /** Valid records now in the stream buffer (or written by a flush). */
  accepted: number;
  /** Lines that were not a valid record; they become dead letters of the flush that takes them. */
  parse_errors: number;
  /** Records in the target's buffer after the last request; the buffer is written when it fills or on a timer. */
  buffer_size: number;
  /** The uploads that requests' flushes wrote (X-Upload-Id), to read with `uploads.status`. */
  upload_ids: string[];
}

export interface StreamOptions extends Pick<CallOptions, 'signal' | 'timeoutMs' | 'retry' | 'headers'> {
  /** Records per request (default 1,000); a request may carry at most the server's STREAM_BUFFER_LIMIT (10,000 by default). */
  recordsPerRequest?: number;
}

export interface WaitOptions<Status = unknown> {
  /** Between two status reads (default 500 ms). */
  intervalMs?: number;
  /** Gives up after this long (default 120,000 ms; 0: no limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with every status read, the last (settled) one included: to show progress. */
  onStatus?: (status: Status) => void;
}

type SearchBody = PostBody<'/api/v1/search/{collection}'>;
type SearchAnswer = PostAnswer<'/api/v1/search/{collection}'>;
type OpenSearchBody = PostBody<'/open/v1/search'>;
type OpenSearchAnswer = PostAnswer<'/open/v1/search'>;
type RecordListQuery = NonNullable<Operation<'/api/v1/records', 'get'>['parameters']['query']>;
type RecordListAnswer = GetAnswer<'/api/v1/records'>;
type UploadStatus = GetAnswer<'/api/v1/uploads/{upload_id}'>;
type UploadListQuery = NonNullable<Operation<'/api/v1/uploads', 'get'>['parameters']['query']>;
type UploadListAnswer = GetAnswer<'/api/v1/uploads'>;
type ExportStatus = GetAnswer<'/api/v1/export/{id}/status'>;
type ReplaceStatus = GetAnswer<'/api/v1/portal/collections/{name}/replace-status'>;
type ReplaceQuery = Operation<'/api/v1/portal/collections/{name}/replace', 'post'>['parameters']['query'];

/** Query values as the URL carries them: numbers accepted where the document says text of digits. */
type Loose<Q> = { [K in keyof Q]?: Q[K] | (string extends Q[K] ? number : never) };

/**
 * A client of the Trove HTTP API. `call(method, path, init)` reaches every operation of the OpenAPI document with its
 * parameters, body and answer typed; the named methods cover the everyday flows. Every call throws TroveError for an
 * answer outside 2xx, TroveNetworkError (or TroveTimeoutError) when no answer came, and tries again after 429 and 503
 * as `retry` allows.
 */
export class TroveClient {
  private readonly core: Core;
  private readonly streaming: boolean;

  constructor(opts: TroveClientOptions) {
    this.core = new Core(opts);
    this.streaming = opts.streamingRequests ?? canStreamRequests();
  }

  /** Uses this API key from now on (undefined: none). */
  setApiKey(key: string | undefined): void {
    this.core.apiKey = key;
  }

  /** Uses this portal sign-in token from now on (undefined: none). */
  setPortalToken(token: string | undefined): void {
    this.core.portalToken = token;
  }

  /**
   * Calls any operation by method and path, as the OpenAPI document names them: `params.path` fills the path's
   * `{names}`, `params.query` the query string, `body` is sent as JSON. Resolves to the answer's body (parsed JSON,
   * text for a text answer, undefined for 204), or as `parseAs` says.
   *
   *     const record = await trove.call('GET', '/api/v1/records/{id}', { params: { path: { id } } });
   */
  call<M extends AnyCaseMethod, P extends PathsWithOptionalInit<Lowercase<M> & Method>, const I extends CallInit<P, Lowercase<M> & Method>>(
    method: M,
    path: P,
    init?: I,
  ): Promise<AnswerAs<Operation<P, Lowercase<M> & Method>, I>>;
  call<M extends AnyCaseMethod, P extends PathsWith<Lowercase<M> & Method>, const I extends CallInit<P, Lowercase<M> & Method>>(
    method: M,
    path: P,
    init: I,
  ): Promise<AnswerAs<Operation<P, Lowercase<M> & Method>, I>>;
  async call(method: string, path: string, init: CallOptions & { params?: unknown; body?: unknown } = {}): Promise<unknown> {
    return (await this.send(method, path, init)).data;
  }

  private send(method: string, path: string, init: CallOptions & { params?: unknown; body?: unknown }) {
    const { params, body, headers, signal, timeoutMs, retry, parseAs } = init;
    return this.core.send({ method, path, params: params as CoreRequest['params'], body, headers, signal, timeoutMs, retry, parseAs });
  }

  /**
   * Uploads a file to any multipart operation (a records file, a PDF, the portal's upload, a staged replace), sending
   * `fields` before the file, and resolves to the operation's answer. Progress: see FileUpload.onProgress.
   */
  async uploadFile<P extends MultipartPath>(path: P, init: PostParams<P> & FileUpload & { fields?: FormFields<P> }): Promise<PostAnswer<P>> {
    const { file, filename = nameOf(file), contentType, onProgress, fields, respondAsync, ...options } = init;
    if (!filename) throw new TypeError('uploadFile: name the file (filename), as Trove reads its format and source_name from it');
    const body = multipartBody(file, { filename, contentType, fields: fields as Record<string, string | undefined>, onProgress, streaming: this.streaming });
    const headers = respondAsync ? { prefer: 'respond-async', ...options.headers } : options.headers;
    const { data } = await this.send('POST', path, { ...options, headers, timeoutMs: options.timeoutMs ?? 0, body });
    return data as PostAnswer<P>;
  }

  /**
   * Streams records from any iterable or async iterable to an NDJSON operation, in requests of at most
   * `recordsPerRequest` records, each sent while it is read (where fetch can stream a body) and sent again whole if it
   * is refused with 429 or 503-with-Retry-After (a full stream buffer answers 429 having added nothing).
   */
  async streamRecords<P extends NdjsonPath>(path: P, init: PostParams<P> & StreamOptions & { records: RecordSource }): Promise<StreamSummary> {
    const { records, recordsPerRequest = 1000, ...options } = init;
    const requests = new NdjsonRequests(records, Math.max(1, recordsPerRequest), this.streaming);
    const summary: StreamSummary = { requests: 0, accepted: 0, parse_errors: 0, buffer_size: 0, upload_ids: [] };
    try {
      for (let body = await requests.next(); body; body = await requests.next()) {
        const { data, response } = await this.send('POST', path, { ...options, timeoutMs: options.timeoutMs ?? 0, body });
        // The buffer's answer; a request sent with `Prefer: respond-async` is an upload of its own, named in the body.
        const answer = data as { accepted?: number; parse_errors?: number; buffer_size?: number; upload_id?: string };
        summary.requests++;
        summary.accepted += answer.accepted ?? 0;
        summary.parse_errors += answer.parse_errors ?? 0;
        summary.buffer_size = answer.buffer_size ?? summary.buffer_size;
        const uploadId = response.headers.get('x-upload-id') ?? answer.upload_id;
        if (uploadId) summary.upload_ids.push(uploadId);
      }
    } finally {
      await requests.close();
    }
    return summary;
  }

  /** The portal: a person's account, sign-in and their tenant's keys, collections and uploads (a portal token). */
  readonly portal = {
    /** Creates an account with a tenant of its own; the client uses its token from now on. */
    signUp: async (account: PostBody<'/api/v1/portal/auth/signup'>) => {
      const session = await this.call('POST', '/api/v1/portal/auth/signup', { body: account });
      this.setPortalToken(session.token);
      return session;
    },
    /** Signs in with email and password; the client uses the token from now on. */
    signIn: async (credentials: PostBody<'/api/v1/portal/auth/login'>) => {
      const session = await this.call('POST', '/api/v1/portal/auth/login', { body: credentials });
      this.setPortalToken(session.token);
      return session;
    },
    account: () => this.call('GET', '/api/v1/portal/account'),
    /** Creates an API key for the signed-in tenant; its value is answered this once. */
    createKey: (key: PostBody<'/api/v1/portal/keys'>) => this.call('POST', '/api/v1/portal/keys', { body: key }),
    listKeys: async () => (await this.call('GET', '/api/v1/portal/keys')).keys,
    rotateKey: (keyId: string) => this.call('POST', '/api/v1/portal/keys/{key_id}/rotate', { params: { path: { key_id: keyId } } }),
    revokeKey: (keyId: string) => this.call('DELETE', '/api/v1/portal/keys/{key_id}', { params: { path: { key_id: keyId } } }),
    collections: () => this.call('GET', '/api/v1/portal/collections'),
    usage: () => this.call('GET', '/api/v1/portal/usage'),
    /** Uploads a file's records into one of the tenant's collections, as uploads.file does with a key. */
    uploadFile: (collection: string, recordType: string, upload: FileUpload & { fields?: FormFields<'/api/v1/portal/upload/{collection}/{record_type}/upload'> }) =>
      this.uploadFile('/api/v1/portal/upload/{collection}/{record_type}/upload', { ...upload, params: { path: { collection, record_type: recordType } } }),
    /** Archives every record of a collection: gone from search once this answers. */
    deleteCollection: (name: string) => this.call('DELETE', '/api/v1/portal/collections/{name}', { params: { path: { name } } }),
    /** The signed-in tenant's uploads, as `uploads` reads them with a key. */
    uploads: {
      list: (query: Loose<UploadListQuery> = {}): Promise<UploadListAnswer> =>
        this.call('GET', '/api/v1/portal/uploads', { params: { query: stringified(query) as UploadListQuery } }),
      status: (uploadId: string) => this.call('GET', '/api/v1/portal/uploads/{upload_id}', { params: { path: { upload_id: uploadId } } }),
      errors: (uploadId: string) => this.call('GET', '/api/v1/portal/uploads/{upload_id}/errors', { params: { path: { upload_id: uploadId } } }),
      wait: (uploadId: string, opts: WaitOptions<UploadStatus> = {}): Promise<UploadStatus> =>
        poll(() => this.portal.uploads.status(uploadId), (s) => s.status !== 'processing', `upload ${uploadId}`, opts),
    },
    /**
     * Blue-green replace of a collection (docs/behaviour/blue-green-replace.md): a file becomes a staging generation,
     * indexed beside the live one, then swapped in or cancelled.
     */
    replace: {
      /** Uploads the file into a new staging generation of the collection (`recordType` required; `record_tag` for XML). */
      upload: (collection: string, query: Omit<ReplaceQuery, 'record_type'> & { recordType: string }, upload: FileUpload) => {
        const { recordType, ...rest } = query;
        return this.uploadFile('/api/v1/portal/collections/{name}/replace', {
          ...upload,
          params: { path: { name: collection }, query: { record_type: recordType, ...rest } },
        });
      },
      status: (collection: string) => this.call('GET', '/api/v1/portal/collections/{name}/replace-status', { params: { path: { name: collection } } }),
      /**
       * Reads the replace's status until its staging records are all indexed (`ready_to_swap`), or indexing ended with
       * some failed (`completed_with_errors`: it will not be ready), or no replace is pending.
       */
      wait: (collection: string, opts: WaitOptions<ReplaceStatus> = {}): Promise<ReplaceStatus> =>
        poll(
          () => this.portal.replace.status(collection),
          (s) => s.ready_to_swap === true || s.phase === 'completed_with_errors' || !s.has_pending_replace,
          `the replace of ${collection}`,
          opts,
        ),
      /** Makes the indexed staging generation the live one and deletes the old records (409 until it is ready). */
      swap: (collection: string) => this.call('POST', '/api/v1/portal/collections/{name}/swap', { params: { path: { name: collection } } }),
      /** Drops the staging generation, archiving its records; the live records are not touched. */
      cancel: (collection: string) => this.call('POST', '/api/v1/portal/collections/{name}/cancel-replace', { params: { path: { name: collection } } }),
    },
  };

  /** The tenant's API keys, with an admin key. */
  readonly keys = {
    create: (key: PostBody<'/api/v1/auth/keys'>) => this.call('POST', '/api/v1/auth/keys', { body: key }),
    list: () => this.call('GET', '/api/v1/auth/keys'),
    rotate: (keyId: string) => this.call('POST', '/api/v1/auth/keys/{key_id}/rotate', { params: { path: { key_id: keyId } } }),
    revoke: (keyId: string) => this.call('DELETE', '/api/v1/auth/keys/{key_id}', { params: { path: { key_id: keyId } } }),
  };

  readonly records = {
    create: (record: PostBody<'/api/v1/records'>) => this.call('POST', '/api/v1/records', { body: record }),
    get: (id: string) => this.call('GET', '/api/v1/records/{id}', { params: { path: { id } } }),
    /** Changes a record's fields (collection_data merged; a key given as null is removed). */
    update: (id: string, changes: NonNullable<CallInit<'/api/v1/records/{id}', 'patch'>['body']>) =>
      this.call('PATCH', '/api/v1/records/{id}', { params: { path: { id } }, body: changes }),
    /** Archives (soft-deletes) a record: gone from search and listings. */
    delete: (id: string) => this.call('DELETE', '/api/v1/records/{id}', { params: { path: { id } } }),
    setVisibility: (id: string, visibility: 'public' | 'private') =>
      this.call('PATCH', '/api/v1/records/{id}/visibility', { params: { path: { id } }, body: { visibility } }),
    /** One page of the caller's records, newest first; pass its `cursor` to the next call. */
    list: (query: Loose<RecordListQuery> = {}): Promise<RecordListAnswer> =>
      this.call('GET', '/api/v1/records', { params: { query: stringified(query) as RecordListQuery } }),
    /** Every record the query lists, a page (`limit`: the server's default page unless given, at most 100) at a time, following the cursor. */
    iterate: (query: Omit<Loose<RecordListQuery>, 'cursor'> = {}): Paginator<RecordListAnswer['items'][number], RecordListAnswer> =>
      cursorPages(
        (cursor) => this.records.list({ ...query, cursor }),
        (page) => page.items,
      ),
  };

  readonly collections = {
    list: () => this.call('GET', '/api/v1/collections'),
    setDefaultVisibility: (collection: string, visibility: 'public' | 'private') =>
      this.call('PATCH', '/api/v1/collections/{collection}/default-visibility', { params: { path: { collection } }, body: { default_visibility: visibility } }),
  };

  /** Searches one of the caller's collections (a key with the search scope). */
  search(collection: string, request: SearchBody = {}, options: Omit<CallOptions, 'parseAs'> = {}): Promise<SearchAnswer> {
    return this.call('POST', '/api/v1/search/{collection}', { ...options, params: { path: { collection } }, body: request });
  }

  /**
   * Every result of a search, `pageSize` at a time (the server's default page unless given; at most 100) by offset.
   * Search pages reach at most offset 10,000: a query matching more is best narrowed with filters.
   */
  searchAll(collection: string, request: Omit<SearchBody, 'offset' | 'limit' | 'format'> = {}, opts: { pageSize?: number } = {}): Paginator<SearchAnswer['results'][number], SearchAnswer> {
    return offsetPages(
      (offset) => this.search(collection, { ...request, offset, ...(opts.pageSize !== undefined && { limit: opts.pageSize }) }),
      (page) => page.results,
      (page) => page.pagination,
    );
  }

  aggregate(request: PostBody<'/api/v1/aggregate'>) {
    return this.call('POST', '/api/v1/aggregate', { body: request });
  }

  /** The caller's usage of its plan this month (any valid key). */
  usage() {
    return this.call('GET', '/api/v1/usage');
  }

  /** Uploads and their status (a key with the upload scope). */
  readonly uploads = {
    /** Uploads a CSV, JSON, NDJSON or XML file's records; answers once every record is stored (or rejected). */
    file: (collection: string, recordType: string, upload: FileUpload & { fields?: FormFields<'/api/v1/upload/{collection}/{record_type}/upload'> }) =>
      this.uploadFile('/api/v1/upload/{collection}/{record_type}/upload', { ...upload, params: { path: { collection, record_type: recordType } } }),
    /** Uploads a PDF, one record per page (1 to 3 pages: one record). */
    pdf: (collection: string, recordType: string, upload: FileUpload) =>
      this.uploadFile('/api/v1/upload/{collection}/{record_type}/pdf', { ...upload, params: { path: { collection, record_type: recordType } } }),
    /** Uploads a list of records (at most 10,000) as one upload. */
    batch: (collection: string, recordType: string, records: unknown[], opts: { sourceName?: string } = {}) =>
      this.call('POST', '/api/v1/upload/{collection}/{record_type}/batch', {
        params: { path: { collection, record_type: recordType }, query: { source_name: opts.sourceName } },
        body: { records },
      }),
    /** Streams records into the collection's stream buffer; see streamRecords. */
    stream: (collection: string, recordType: string, records: RecordSource, opts: StreamOptions = {}) =>
      this.streamRecords('/api/v1/upload/{collection}/{record_type}/stream', { ...opts, records, params: { path: { collection, record_type: recordType } } }),
    status: (uploadId: string) => this.call('GET', '/api/v1/uploads/{upload_id}', { params: { path: { upload_id: uploadId } } }),
    /** Every dead letter of an upload, in record order. */
    errors: (uploadId: string) => this.call('GET', '/api/v1/uploads/{upload_id}/errors', { params: { path: { upload_id: uploadId } } }),
    /** One page of the tenant's uploads, newest first (`status: 'processing'`: those running); pass its `cursor` on. */
    list: (query: Loose<UploadListQuery> = {}): Promise<UploadListAnswer> =>
      this.call('GET', '/api/v1/uploads', { params: { query: stringified(query) as UploadListQuery } }),
    /** Reads the upload's status until it is no longer processing, and resolves to it (complete or failed). */
    wait: (uploadId: string, opts: WaitOptions<UploadStatus> = {}): Promise<UploadStatus> =>
      poll(() => this.uploads.status(uploadId), (s) => s.status !== 'processing', `upload ${uploadId}`, opts),
  };

  /** The older pipeline's view of an upload's records (its indexing jobs). */
  readonly pipeline = {
    status: (ingestionId: string) => this.call('GET', '/api/v1/pipeline/status/{ingestion_id}', { params: { path: { ingestion_id: ingestionId } } }),
    /** Queues the upload's pending and failed records for indexing again. */
    trigger: (ingestionId: string) => this.call('POST', '/api/v1/pipeline/trigger/{ingestion_id}', { params: { path: { ingestion_id: ingestionId } } }),
  };

  /** Exports of a collection (an admin key). */
  readonly exports = {
    start: (query: NonNullable<Operation<'/api/v1/export', 'post'>['parameters']['query']>) => this.call('POST', '/api/v1/export', { params: { query } }),
    status: (exportId: string) => this.call('GET', '/api/v1/export/{id}/status', { params: { path: { id: exportId } } }),
    wait: (exportId: string, opts: WaitOptions<ExportStatus> = {}): Promise<ExportStatus> =>
      poll(() => this.exports.status(exportId), (s) => s.status !== 'processing', `export ${exportId}`, opts),
    /** A completed export: the records (JSON format) or the CSV text. */
    download: (exportId: string) => this.call('GET', '/api/v1/export/{id}/download', { params: { path: { id: exportId } } }),
    /** A completed export's file as it arrives, bytes unchanged: to write to a file without holding it whole. */
    downloadStream: (exportId: string, options: Pick<CallOptions, 'signal' | 'timeoutMs'> = {}) =>
      this.call('GET', '/api/v1/export/{id}/download', { ...options, params: { path: { id: exportId } }, parseAs: 'stream' }),
  };

  /** The MCP endpoint's tools, called one request each (it is stateless), with the API key. */
  readonly mcp = {
    /**
     * Calls a tool (`trove_schema`, `trove_search`, …) and resolves to its result (`content`, and `isError` when the
     * tool refused); a JSON-RPC error answer (an unknown tool, arguments its schema refuses) throws TroveToolError.
     */
    callTool: async (name: string, args: Record<string, unknown>, options: Pick<CallOptions, 'signal' | 'timeoutMs'> = {}): Promise<ToolResult> => {
      const text = await this.call('POST', '/mcp', {
        ...options,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_PROTOCOL_VERSION },
        parseAs: 'text',
      });
      const message = jsonRpcMessage(text);
      if (message.error) throw new TroveToolError(name, message.error.code, message.error.message);
      return message.result as ToolResult;
    },
  };

  /** The Open API: public records of every tenant, without a credential. */
  readonly open = {
    search: (request: OpenSearchBody = {}, options: Omit<CallOptions, 'parseAs'> = {}): Promise<OpenSearchAnswer> =>
      this.call('POST', '/open/v1/search', { ...options, body: request }),
    /** Every result of a public search, `pageSize` at a time (the server's default page unless given; at most 50) by offset. */
    searchAll: (request: Omit<OpenSearchBody, 'offset' | 'limit'> = {}, opts: { pageSize?: number } = {}): Paginator<OpenSearchAnswer['results'][number], OpenSearchAnswer> =>
      offsetPages(
        (offset) => this.open.search({ ...request, offset, ...(opts.pageSize !== undefined && { limit: opts.pageSize }) }),
        (page) => page.results,
        (page) => page.pagination,
      ),
    collections: () => this.call('GET', '/open/v1/collections'),
    /** A collection's public record types, count and filterable fields (404 without public records). */
    schema: (collection: string) => this.call('GET', '/open/v1/collections/{collection}/schema', { params: { path: { collection } } }),
    record: (recordId: string) => this.call('GET', '/open/v1/records/{record_id}', { params: { path: { record_id: recordId } } }),
    aggregate: (request: PostBody<'/open/v1/aggregate'>) => this.call('POST', '/open/v1/aggregate', { body: request }),
  };
}

type RequiredOf<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] };

/** The paths of `M` whose call needs no init (no required parameter or body). */
type PathsWithOptionalInit<M extends Method> = {
  [P in PathsWith<M>]: [keyof RequiredOf<CallInit<P, M>>] extends [never] ? P : never;
}[PathsWith<M>];

/** Query values as text, as the URL carries them (undefined left out). */
function stringified(query: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => [k, String(v)]),
  );
}

async function poll<T>(read: () => Promise<T>, settled: (value: T) => boolean, what: string, opts: WaitOptions<T>): Promise<T> {
  const limit = opts.timeoutMs ?? 120_000;
  const deadline = limit > 0 ? Date.now() + limit : Infinity;
  for (;;) {
    const value = await read();
    opts.onStatus?.(value);
    if (settled(value)) return value;
    if (Date.now() >= deadline) throw new Error(`${what} is still processing after ${limit} ms`);
    await sleep(opts.intervalMs ?? 500, opts.signal);
  }
}

/** The MCP protocol version the client speaks (Streamable HTTP). */
const MCP_PROTOCOL_VERSION = '2025-06-18';

/** What an MCP tool answers: its content (text for Trove's tools) and whether it refused. */
export interface ToolResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

/** The JSON-RPC message of an MCP answer: JSON, or the first `data:` line of a server-sent event stream. */
function jsonRpcMessage(text: string): { result?: unknown; error?: { code: number; message: string } } {
  const data = /^data: ?(.*)$/m.exec(text)?.[1] ?? text;
  return JSON.parse(data) as { result?: unknown; error?: { code: number; message: string } };
}

/** Whether this runtime's fetch sends a ReadableStream body: Node (and Deno and Bun, which answer to process.versions.node). */
function canStreamRequests(): boolean {
  const process = (globalThis as { process?: { versions?: { node?: unknown } } }).process;
  return typeof process?.versions?.node === 'string';
}
