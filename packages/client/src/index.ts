export { TroveClient, type FileUpload, type StreamOptions, type StreamSummary, type ToolResult, type TroveClientOptions, type WaitOptions } from './client.js';
export { TroveError, TroveNetworkError, TroveTimeoutError, TroveToolError, type ValidationIssue } from './errors.js';
export type { FileContent } from './multipart.js';
export type { RecordSource } from './ndjson.js';
export { Paginator, cursorPages, offsetPages } from './paginate.js';
export type { RetryOptions } from './retry.js';
export type { components, operations, paths } from './schema.js';
export type { Answer, AnswerAs, CallInit, CallOptions, Method, MultipartPath, NdjsonPath, Operation, ParseAs, PathsWith } from './types.js';
export type { Progress, ProgressListener } from './xhr.js';
