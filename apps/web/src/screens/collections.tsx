import { useEffect, useState } from 'preact/hooks';
import { portal, problemOf, trove } from '../api';
import { navigate } from '../navigation';
import { inferSchema, preview } from '../schema';
import { Confirm, Link, Problem, formatDate, formatNumber, useLoad } from '../ui';

const PAGE = 20;

export function Collections() {
  const list = useLoad(() => trove.portal.collections());
  return (
    <section>
      <h1 tabIndex={-1}>Collections</h1>
      <Problem message={list.error} />
      {list.data && (
        <p>
          {formatNumber(list.data.total_records)} records
          {list.data.record_limit !== null ? ` of ${formatNumber(list.data.record_limit)} on the ${list.data.plan} plan` : ''}.
        </p>
      )}
      {list.data && list.data.collections.length === 0 && (
        <p>
          No collections yet. <Link href="/app/upload">Upload a file</Link> to make one.
        </p>
      )}
      {list.data && list.data.collections.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Collection</th>
                <th scope="col">Record types</th>
                <th scope="col">Records</th>
                <th scope="col">Indexed</th>
                <th scope="col">Pending</th>
                <th scope="col">Failed</th>
              </tr>
            </thead>
            <tbody>
              {list.data.collections.map((c) => (
                <tr key={c.name}>
                  <th scope="row">
                    <Link href={`/app/collections/${encodeURIComponent(c.name)}`}>{c.name}</Link>
                    {c.has_pending_replace && <span class="badge">replace staged</span>}
                  </th>
                  <td>{c.record_types.join(', ')}</td>
                  <td>{formatNumber(c.total_records)}</td>
                  <td>{formatNumber(c.indexed)}</td>
                  <td>{formatNumber(c.pending + c.processing)}</td>
                  <td>{formatNumber(c.failed)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type Item = Awaited<ReturnType<typeof browse>>['items'][number];
const browse = (collection: string, offset: number) =>
  trove.call('GET', '/api/v1/portal/records', { params: { query: { collection, offset, limit: PAGE } } });

export function Collection({ name }: { name: string }) {
  const [offset, setOffset] = useState(0);
  const page = useLoad(() => browse(name, offset), [name, offset]);
  const [open, setOpen] = useState<string>();
  const [deleting, setDeleting] = useState(false);
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  const fields = inferSchema(page.data?.items ?? []);
  const columns = fields.slice(0, 5);
  // The collection's default visibility comes with the portal's collection list (no route answers one collection).
  const summary = useLoad(() => trove.portal.collections(), [name]);
  const [chosenVisibility, setChosenVisibility] = useState<'public' | 'private'>();
  const currentVisibility = summary.data?.collections.find((c) => c.name === name)?.default_visibility;
  const shownVisibility = chosenVisibility ?? currentVisibility;

  const act = async (what: () => Promise<string>) => {
    setError(undefined);
    try {
      setMessage(await portal(what));
      page.reload();
    } catch (err) {
      setError(problemOf(err));
    }
  };

  return (
    <section>
      <p>
        <Link href="/app/collections">← Collections</Link>
      </p>
      <h1 tabIndex={-1}>{name}</h1>
      {currentVisibility && (
        <p class="hint">
          New records of this collection are <strong>{currentVisibility}</strong>.
        </p>
      )}
      <div class="actions">
        <Link class="button" href={`/app/search?collection=${encodeURIComponent(name)}`}>
          Search this collection
        </Link>
        <button type="button" class="secondary" onClick={() => void act(async () => `${(await trove.call('POST', '/api/v1/portal/collections/{name}/reindex', { params: { path: { name } } })).records_queued} records queued for indexing.`)}>
          Reindex
        </button>
        <label class="inline">
          Default visibility
          <select
            value={shownVisibility ?? ''}
            onChange={(e) => {
              const visibility = e.currentTarget.value as 'public' | 'private';
              setChosenVisibility(visibility);
              void act(async () => {
                try {
                  const answer = await trove.call('PATCH', '/api/v1/portal/collections/{name}/default-visibility', { params: { path: { name } }, body: { default_visibility: visibility } });
                  summary.reload();
                  return `Records are now ${visibility} by default (${formatNumber((answer as { records_updated: number }).records_updated)} changed).`;
                } catch (err) {
                  // Refused: the select goes back to what the collection has.
                  setChosenVisibility(undefined);
                  throw err;
                }
              });
            }}
          >
            {/* A collection with no settings yet (nothing written to it) is listed nowhere, so its default is unknown. */}
            {shownVisibility === undefined && <option value="">Choose…</option>}
            <option value="private">private</option>
            <option value="public">public</option>
          </select>
        </label>
        <button type="button" class="danger" onClick={() => setDeleting(true)}>
          Delete collection
        </button>
      </div>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      <Problem message={error ?? page.error} />

      <h2>Schema</h2>
      <p class="hint">Inferred from the records on this page.</p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Type</th>
              <th scope="col">Sample values</th>
            </tr>
          </thead>
          <tbody>
            {fields.map((f) => (
              <tr key={f.name}>
                <th scope="row">{f.name}</th>
                <td>{f.types.join(' | ')}</td>
                <td>{f.samples.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2>Records</h2>
      {page.data && (
        <>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  {columns.map((c) => (
                    <th key={c.name} scope="col">
                      {c.name}
                    </th>
                  ))}
                  <th scope="col">Indexing</th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      <button type="button" class="link" onClick={() => setOpen(r.id)} aria-expanded={open === r.id}>
                        {r.name}
                      </button>
                    </th>
                    {columns.map((c) => (
                      <td key={c.name}>{r.collection_data[c.name] === undefined ? '' : preview(r.collection_data[c.name], 40)}</td>
                    ))}
                    <td>{r.indexing_status}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="Pages">
            <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Previous
            </button>
            <span>
              {formatNumber(page.data.total === 0 ? 0 : offset + 1)}–{formatNumber(Math.min(offset + PAGE, page.data.total))} of {formatNumber(page.data.total)}
            </span>
            <button type="button" class="secondary" disabled={offset + PAGE >= page.data.total} onClick={() => setOffset(offset + PAGE)}>
              Next
            </button>
          </nav>
        </>
      )}
      {open && <RecordView key={open} id={open} onClose={() => setOpen(undefined)} onChanged={page.reload} />}
      <Replace name={name} recordType={page.data?.items[0]?.record_type ?? 'record'} onSwapped={page.reload} />
      <Confirm
        open={deleting}
        title={`Delete the collection “${name}”?`}
        action="Delete collection"
        typeToConfirm={name}
        onCancel={() => setDeleting(false)}
        onConfirm={() => {
          setDeleting(false);
          void portal(() => trove.portal.deleteCollection(name)).then(
            () => navigate('/app/collections'),
            (err: unknown) => setError(problemOf(err)),
          );
        }}
      >
        <p>Every record of {name} is archived and gone from search. This cannot be undone.</p>
      </Confirm>
    </section>
  );
}

/** collection_data as a tree: objects and arrays open as nested lists. */
function Tree({ value }: { value: unknown }) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    return (
      <ul class="tree">
        {entries.map(([k, v]) => (
          <li key={k}>
            <b>{k}</b>: {v !== null && typeof v === 'object' ? <Tree value={v} /> : <span>{JSON.stringify(v)}</span>}
          </li>
        ))}
      </ul>
    );
  }
  return <span>{JSON.stringify(value)}</span>;
}

function RecordView({ id, onClose, onChanged }: { id: string; onClose: () => void; onChanged: () => void }) {
  const record = useLoad(() => trove.call('GET', '/api/v1/portal/records/{id}', { params: { path: { id } } }), [id]);
  const [error, setError] = useState<string>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const r = record.data as (Item & { visibility: 'public' | 'private' }) | undefined;
  const act = async (what: () => Promise<unknown>, close = false) => {
    setError(undefined);
    try {
      await portal(what);
      onChanged();
      if (close) onClose();
      else record.reload();
    } catch (err) {
      setError(problemOf(err));
    }
  };
  return (
    <div class="card record" role="region" aria-label="Record">
      <div class="result-head">
        <h2>{r?.name ?? 'Record'}</h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <Problem message={error ?? record.error} />
      {r && (
        <>
          <p>
            Visibility: <strong>{r.visibility}</strong>{' '}
            <button
              type="button"
              onClick={() =>
                void act(() => trove.call('PATCH', '/api/v1/portal/records/{id}/visibility', { params: { path: { id } }, body: { visibility: r.visibility === 'public' ? 'private' : 'public' } }))
              }
            >
              {r.visibility === 'public' ? 'Make private' : 'Make public'}
            </button>
          </p>
          <form
            class="stack"
            onSubmit={(e) => {
              e.preventDefault();
              const form = new FormData(e.currentTarget);
              let data: Record<string, unknown>;
              try {
                data = JSON.parse(String(form.get('data'))) as Record<string, unknown>;
              } catch {
                setError('Fields must be a JSON object.');
                return;
              }
              void act(() => trove.call('PATCH', '/api/v1/portal/records/{id}', { params: { path: { id } }, body: { name: String(form.get('name')), collection_data: data } }));
            }}
          >
            <label>
              Name
              <input name="name" value={r.name} required />
            </label>
            <label>
              Fields (JSON)
              <textarea name="data" rows={6} class="mono" value={JSON.stringify(r.collection_data, null, 2)} />
            </label>
            <div class="actions">
              <button type="submit">Save</button>
              <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                Delete record
              </button>
            </div>
          </form>
          <h3>Fields</h3>
          <Tree value={r.collection_data} />
          <p class="hint">
            Updated {formatDate(r.updated_at)} · id <code>{r.id}</code>
          </p>
        </>
      )}
      <Confirm
        open={confirmDelete}
        title={`Delete “${r?.name ?? ''}”?`}
        action="Delete record"
        onCancel={() => setConfirmDelete(false)}
        onConfirm={() => {
          setConfirmDelete(false);
          void act(() => trove.call('DELETE', '/api/v1/portal/records/{id}', { params: { path: { id } } }), true);
        }}
      >
        <p>The record is archived and gone from search.</p>
      </Confirm>
    </div>
  );
}

/** Blue-green replace: a new file is staged beside the live records, then swapped in at once, or cancelled. */
function Replace({ name, recordType, onSwapped }: { name: string; recordType: string; onSwapped: () => void }) {
  const status = useLoad(() => trove.portal.replace.status(name), [name]);
  const [file, setFile] = useState<File>();
  const [type, setType] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const [sent, setSent] = useState<number>();
  const s = status.data;
  const waiting = s?.has_pending_replace === true && s.ready_to_swap !== true && s.phase !== 'completed_with_errors';

  // While the staged records are indexed, the status is read again every second.
  useEffect(() => {
    if (!waiting) return;
    const t = setTimeout(status.reload, 1000);
    return () => clearTimeout(t);
  }, [waiting, s]);

  const run = async (what: () => Promise<string | undefined>) => {
    setBusy(true);
    setError(undefined);
    try {
      setDone(await portal(what));
      status.reload();
    } catch (err) {
      setError(problemOf(err));
    }
    setBusy(false);
    setSent(undefined);
  };

  return (
    <div class="card">
      <h2>Replace with a new file</h2>
      <p>The new file's records are staged beside the live ones; searches keep finding the old ones until you swap.</p>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (!file) return;
          void run(async () => {
            await trove.portal.replace.upload(name, { recordType: type.trim() || recordType }, { file, onProgress: ({ loaded }) => setSent(loaded) });
            return undefined;
          });
        }}
      >
        <label>
          Replacement file
          <input type="file" accept=".csv,.json,.ndjson,.jsonl,.xml" onChange={(e) => setFile(e.currentTarget.files?.[0])} />
        </label>
        <label>
          Record type
          <input value={type} placeholder={recordType} onInput={(e) => setType(e.currentTarget.value)} />
        </label>
        {sent !== undefined && busy && (
          <label>
            Sending the replacement
            <progress value={sent} max={file?.size || 1} />
          </label>
        )}
        <button type="submit" disabled={!file || busy || s?.has_pending_replace === true}>
          Stage replacement
        </button>
      </form>
      <Problem message={error ?? status.error} />
      {done && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
      {s?.has_pending_replace && (
        <div role="status">
          <p>
            Staged replacement: phase <strong class="badge">{s.phase ?? 'staging'}</strong>{' '}
            {formatNumber(s.indexed ?? 0)} of {formatNumber(s.total ?? 0)} indexed, {formatNumber((s.pending ?? 0) + (s.processing ?? 0))} waiting,{' '}
            {formatNumber(s.failed ?? 0)} failed.
          </p>
          <label>
            Indexing the replacement
            <progress value={s.indexed ?? 0} max={s.total || 1} />
          </label>
          <div class="actions">
            <button
              type="button"
              disabled={busy || s.ready_to_swap !== true}
              onClick={() =>
                void run(async () => {
                  const swapped = await trove.portal.replace.swap(name);
                  onSwapped();
                  return `Swapped: ${formatNumber(swapped.new_record_count)} records are live, ${formatNumber(swapped.old_record_count)} old ones removed.`;
                })
              }
            >
              {s.ready_to_swap ? 'Swap now' : 'Swap (when ready)'}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => void run(async () => (await trove.portal.replace.cancel(name), 'Replacement cancelled.'))}>
              Cancel replace
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
