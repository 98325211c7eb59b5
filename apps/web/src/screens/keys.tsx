import { useState } from 'preact/hooks';
import { portal, problemOf, trove } from '../api';
import { Confirm, CopyButton, Problem, formatDate, useLoad } from '../ui';

const SCOPES = ['search', 'upload', 'records', 'admin'] as const;

/** A key's value, shown once after it is made or rotated. */
function Revealed({ name, value, onDone }: { name: string; value: string; onDone: () => void }) {
  return (
    <div class="revealed" role="status">
      <h2>Your new key “{name}”</h2>
      <p class="warning">
        <strong>Copy it now: it will not be shown again.</strong> Trove keeps only a hash of it.
      </p>
      <label>
        API key
        <input readOnly value={value} class="mono" onFocus={(e) => e.currentTarget.select()} />
      </label>
      <div class="actions">
        <CopyButton text={value} label="Copy key" />
        <button type="button" class="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

export function Keys() {
  const keys = useLoad(() => trove.portal.listKeys());
  const [error, setError] = useState<string>();
  const [revealed, setRevealed] = useState<{ name: string; value: string }>();
  const [revoking, setRevoking] = useState<{ id: string; name: string }>();
  const [scopes, setScopes] = useState<string[]>(['admin']);

  const act = async (what: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await portal(what);
      keys.reload();
    } catch (err) {
      setError(problemOf(err));
    }
  };

  return (
    <section>
      <h1 tabIndex={-1}>API keys</h1>
      <p>Programs use a key to call Trove's API. Give each program its own, with only the scopes it needs.</p>
      {revealed && <Revealed {...revealed} onDone={() => setRevealed(undefined)} />}
      <form
        class="card row-form"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          const name = String(new FormData(form).get('name')).trim();
          void act(async () => {
            const made = await trove.portal.createKey({ name, scopes: scopes as (typeof SCOPES)[number][] });
            setRevealed({ name: made.name, value: made.key });
            form.reset();
          });
        }}
      >
        <h2>Create a key</h2>
        <label>
          Name
          <input name="name" required maxLength={200} placeholder="catalogue importer" />
        </label>
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} class="inline">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes((s) => (e.currentTarget.checked ? [...s, scope] : s.filter((x) => x !== scope)))}
              />
              {scope}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={scopes.length === 0}>
          Create key
        </button>
      </form>
      <Problem message={error ?? keys.error} />
      <h2>Your keys</h2>
      {keys.data && keys.data.length === 0 && <p>No keys yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id}>
                  <th scope="row">{key.name}</th>
                  <td>{key.scopes.join(', ')}</td>
                  <td>{formatDate(key.created_at)}</td>
                  <td>{formatDate(key.last_used_at)}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Rotate ${key.name}`}
                      onClick={() =>
                        void act(async () => {
                          const rotated = await trove.portal.rotateKey(key.id);
                          setRevealed({ name: rotated.name, value: rotated.key });
                        })
                      }
                    >
                      Rotate
                    </button>
                    <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => setRevoking({ id: key.id, name: key.name })}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Confirm
        open={revoking !== undefined}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        action="Revoke key"
        onCancel={() => setRevoking(undefined)}
        onConfirm={() => {
          const target = revoking!;
          setRevoking(undefined);
          void act(() => trove.portal.revokeKey(target.id));
        }}
      >
        <p>Programs using this key stop working at once. This cannot be undone.</p>
      </Confirm>
    </section>
  );
}
