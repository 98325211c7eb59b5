import { useState } from 'preact/hooks';
import { baseUrl, portal, problemOf, trove } from '../api';
import { uploadClient, uploadCurl } from '../snippets';
import { Link, Problem, Snippet, formatNumber } from '../ui';

type Status = Awaited<ReturnType<typeof trove.portal.uploads.status>>;

const ACCEPT = '.csv,.json,.ndjson,.jsonl,.xml,.pdf';

/** Where an upload is: sending its bytes, then its records being read and written, then done. */
type Phase = { kind: 'idle' } | { kind: 'sending'; loaded: number; total: number } | { kind: 'processing'; status?: Status } | { kind: 'done'; status: Status };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How far the records are, as a fraction when the upload knows its size. */
function processed(status: Status | undefined): { value?: number; max?: number; text: string } {
  if (!status) return { text: 'Waiting for the server…' };
  const p = status.progress;
  const read = `${formatNumber(p.records_read)} records read`;
  if (p.records_total) return { value: p.records_read, max: p.records_total, text: `${read} of ${formatNumber(p.records_total)}` };
  if (p.bytes_total) return { value: p.bytes_read ?? 0, max: p.bytes_total, text: read };
  return { text: read };
}

export function Upload() {
  const [file, setFile] = useState<File>();
  const [collection, setCollection] = useState('');
  const [recordType, setRecordType] = useState('');
  const [dragging, setDragging] = useState(false);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [error, setError] = useState<string>();

  const start = async (e: Event) => {
    e.preventDefault();
    if (!file) return setError('Choose a file to upload.');
    setError(undefined);
    setPhase({ kind: 'sending', loaded: 0, total: file.size });
    try {
      const answer = await portal(() =>
        trove.portal.uploadFile(collection.trim(), recordType.trim() || 'record', {
          file,
          respondAsync: true,
          onProgress: ({ loaded, total }) => setPhase({ kind: 'sending', loaded, total: total ?? file.size }),
        }),
      );
      setPhase({ kind: 'processing' });
      let status = await portal(() => trove.portal.uploads.status(answer.upload_id));
      while (status.status === 'processing') {
        setPhase({ kind: 'processing', status });
        await sleep(400);
        status = await portal(() => trove.portal.uploads.status(answer.upload_id));
      }
      setPhase({ kind: 'done', status });
    } catch (err) {
      setError(problemOf(err));
      setPhase({ kind: 'idle' });
    }
  };

  const busy = phase.kind === 'sending' || phase.kind === 'processing';
  return (
    <section>
      <h1 tabIndex={-1}>Upload records</h1>
      <p>A CSV, JSON, NDJSON or XML file becomes one record per row or item; a PDF becomes one record. Uploading a file again updates its records.</p>
      <form class="card stack" onSubmit={start}>
        <div
          class={dragging ? 'drop dragging' : 'drop'}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            const dropped = e.dataTransfer?.files[0];
            if (dropped) setFile(dropped);
          }}
        >
          <label>
            File
            <input type="file" accept={ACCEPT} onChange={(e) => setFile(e.currentTarget.files?.[0])} />
          </label>
          <p class="hint">…or drop a file here (CSV, JSON, NDJSON, XML or PDF).</p>
          {file && (
            <p>
              Chosen: <strong>{file.name}</strong> ({formatNumber(file.size)} bytes)
            </p>
          )}
        </div>
        <label>
          Collection
          <input value={collection} onInput={(e) => setCollection(e.currentTarget.value)} required pattern="[A-Za-z0-9][A-Za-z0-9_\-]*" placeholder="products" />
          <span class="hint">Letters, digits, _ and -. A new name starts a new collection.</span>
        </label>
        <label>
          Record type
          <input value={recordType} onInput={(e) => setRecordType(e.currentTarget.value)} placeholder="record" />
        </label>
        <Problem message={error} />
        <button type="submit" disabled={busy}>
          Upload
        </button>
      </form>

      {phase.kind === 'sending' && (
        <div class="progress" role="status">
          <label>
            Sending {file?.name}
            <progress value={phase.loaded} max={phase.total || 1} />
          </label>
          <span>
            {formatNumber(phase.loaded)} of {formatNumber(phase.total)} bytes
          </span>
        </div>
      )}
      {phase.kind === 'processing' && (
        <div class="progress" role="status">
          <label>
            Processing records
            {processed(phase.status).max ? <progress value={processed(phase.status).value} max={processed(phase.status).max} /> : <progress />}
          </label>
          <span>{processed(phase.status).text}</span>
        </div>
      )}
      {phase.kind === 'done' && <Summary status={phase.status} />}
      {collection && file && (
        <details>
          <summary>The same upload from a program</summary>
          <Snippet title="curl" code={uploadCurl(baseUrl, collection, recordType || 'record', file.name)} />
          <Snippet title="TypeScript" code={uploadClient(baseUrl, collection, recordType || 'record', file.name)} />
        </details>
      )}
    </section>
  );
}

function Summary({ status }: { status: Status }) {
  const s = status.summary;
  // The status carries the first 100 dead letters; the rest are a click away.
  const [all, setAll] = useState<Status['errors']>();
  const [error, setError] = useState<string>();
  const errors = all ?? status.errors;
  return (
    <div class="card" role="status">
      <h2>{status.status === 'complete' ? 'Upload complete' : 'Upload failed'}</h2>
      {status.failure && <p class="problem">{status.failure}</p>}
      <dl class="counts">
        <div>
          <dt>Read</dt>
          <dd>{formatNumber(s.submitted)}</dd>
        </div>
        <div>
          <dt>Accepted</dt>
          <dd>{formatNumber(s.accepted)}</dd>
        </div>
        <div>
          <dt>Rejected</dt>
          <dd>{formatNumber(s.rejected)}</dd>
        </div>
        <div>
          <dt>Duplicates skipped</dt>
          <dd>{formatNumber(s.dedup_skipped)}</dd>
        </div>
      </dl>
      <p>
        <Link href={`/app/collections/${encodeURIComponent(status.collection)}`}>See the collection</Link> ·{' '}
        <Link href={`/app/search?collection=${encodeURIComponent(status.collection)}`}>Search it</Link>
      </p>
      {errors.length > 0 && (
        <>
          <h3>Rejected records</h3>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Problem</th>
                  <th scope="col">What was sent</th>
                </tr>
              </thead>
              <tbody>
                {errors.map((d) => (
                  <tr key={d.record_index}>
                    <td>{d.record_index + 1}</td>
                    <td>{d.error}</td>
                    <td>
                      <code>{JSON.stringify(d.record_data)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {errors.length < s.rejected && (
            <button
              type="button"
              class="secondary"
              onClick={() => void portal(() => trove.portal.uploads.errors(status.id)).then(setAll, (err: unknown) => setError(problemOf(err)))}
            >
              Show all {formatNumber(s.rejected)} rejected records
            </button>
          )}
          <Problem message={error} />
        </>
      )}
    </div>
  );
}
