import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { portal, problemOf } from './api';
import { navigate } from './navigation';

/** Loads what a screen shows through `portal` (a 401 signs out); `reload` asks again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): { data?: T; error?: string; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    portal(load).then(
      (data) => live && setState({ data, loading: false }),
      (err: unknown) => live && setState({ error: problemOf(err), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: useCallback(() => setTick((t) => t + 1), []) };
}

export function Link({ href, children, class: className }: { href: string; children: ComponentChildren; class?: string }) {
  return (
    <a
      href={href}
      class={className}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}

export function Problem({ message }: { message?: string }) {
  return message ? (
    <p class="problem" role="alert">
      {message}
    </p>
  ) : null;
}

/** A button that copies text, saying so for a moment (and to screen readers). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // Without clipboard access (a page not served over HTTPS), select the text for the person to copy.
          const area = document.createElement('textarea');
          area.value = text;
          document.body.append(area);
          area.select();
          document.execCommand('copy');
          area.remove();
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      }}
    >
      {copied ? 'Copied' : label}
      <span class="visually-hidden" aria-live="polite">
        {copied ? ' to the clipboard' : ''}
      </span>
    </button>
  );
}

/** A snippet to copy: its title, the code, and a copy button naming it. */
export function Snippet({ title, code }: { title: string; code: string }) {
  return (
    <figure class="snippet">
      <figcaption>
        <span>{title}</span> <CopyButton text={code} label={`Copy ${title}`} />
      </figcaption>
      <pre>
        <code>{code}</code>
      </pre>
    </figure>
  );
}

/**
 * Asks before something that cannot be undone, in a modal dialog (the browser's <dialog>: focus moves into it,
 * Escape cancels). With `typeToConfirm`, the person types that name first.
 */
export function Confirm({
  open,
  title,
  children,
  action,
  typeToConfirm,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  action: string;
  typeToConfirm?: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      setTyped('');
      dialog.showModal();
    } else if (!open && dialog.open) dialog.close();
  }, [open]);
  const ready = typeToConfirm === undefined || typed === typeToConfirm;
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onCancel={onCancel} onClose={() => open && onCancel()}>
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      {typeToConfirm !== undefined && (
        <label>
          Type {typeToConfirm} to confirm
          <input value={typed} onInput={(e) => setTyped(e.currentTarget.value)} autocomplete="off" />
        </label>
      )}
      <div class="actions">
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" disabled={!ready} onClick={onConfirm}>
          {action}
        </button>
      </div>
    </dialog>
  );
}

export const formatNumber = (n: number) => new Intl.NumberFormat('en').format(n);
export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString('en') : '—');
