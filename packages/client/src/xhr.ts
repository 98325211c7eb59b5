/** Bytes of a request body sent so far, and of the whole body when known. */
export interface Progress {
  loaded: number;
  total: number | undefined;
}

export type ProgressListener = (progress: Progress) => void;

/** The part of XMLHttpRequest this file uses. */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  getAllResponseHeaders(): string;
  send(body: Blob | null): void;
  abort(): void;
  responseType: string;
  readonly response: unknown;
  readonly status: number;
  readonly statusText: string;
  readonly upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  ontimeout: (() => void) | null;
}

type XhrConstructor = new () => Xhr;

/** The runtime's XMLHttpRequest (browsers), or undefined (Node). */
export function xhrConstructor(): XhrConstructor | undefined {
  return (globalThis as { XMLHttpRequest?: XhrConstructor }).XMLHttpRequest;
}

/** Headers a page may not set (the browser sets them itself). */
const FORBIDDEN = new Set(['content-length', 'host', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * A fetch that sends through XMLHttpRequest, whose upload events tell how much of the body has gone: what a browser
 * offers, where fetch reports nothing until the answer comes and cannot stream a request body over HTTP/1.1.
 */
export function xhrFetch(onProgress: ProgressListener): (request: Request) => Promise<Response> {
  return async (request) => {
    const Xhr = xhrConstructor();
    if (!Xhr) throw new TypeError('XMLHttpRequest is not available in this runtime');
    const body = request.body ? await request.blob() : null;
    return new Promise<Response>((resolve, reject) => {
      const xhr = new Xhr();
      const signal = request.signal;
      const onAbort = () => xhr.abort();
      xhr.open(request.method, request.url);
      xhr.responseType = 'blob';
      request.headers.forEach((value, name) => {
        if (!FORBIDDEN.has(name)) xhr.setRequestHeader(name, value);
      });
      xhr.upload.onprogress = (e) => onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : undefined });
      const done = () => signal.removeEventListener('abort', onAbort);
      xhr.onload = () => {
        done();
        const size = body?.size ?? 0;
        onProgress({ loaded: size, total: size });
        resolve(new Response(xhr.status === 204 || xhr.status === 205 ? null : (xhr.response as Blob), { status: xhr.status, statusText: xhr.statusText, headers: parseHeaders(xhr.getAllResponseHeaders()) }));
      };
      xhr.onerror = xhr.ontimeout = () => {
        done();
        reject(new TypeError('Network request failed'));
      };
      xhr.onabort = () => {
        done();
        reject(signal.reason ?? new DOMException('The request was aborted', 'AbortError'));
      };
      if (signal.aborted) return xhr.onabort();
      signal.addEventListener('abort', onAbort, { once: true });
      xhr.send(body);
    });
  };
}

function parseHeaders(raw: string): Headers {
  const headers = new Headers();
  for (const line of raw.trim().split(/[\r\n]+/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}
