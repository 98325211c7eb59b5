/** The portal's quickstart, in the order a new account goes through it. */
export const QUICKSTART_STEPS = [
  { id: 'create_api_key', title: 'Create an API key' },
  { id: 'define_schema', title: 'Define a record type' },
  { id: 'upload_data', title: 'Upload your data' },
  { id: 'first_search', title: 'Run your first search' },
] as const;

export type QuickstartStep = (typeof QUICKSTART_STEPS)[number]['id'];
/** The steps a usage.events fact proves; auth knows of the first key itself. */
export type ProvenStep = Exclude<QuickstartStep, 'create_api_key'>;

export interface QuickstartAnswer {
  steps: Array<{ id: QuickstartStep; title: string; completed: boolean; completed_at: string | null }>;
  all_completed: boolean;
}

/** Every step in order, completed where a completion time is known. */
export function quickstartOf(completed: Map<QuickstartStep, Date>): QuickstartAnswer {
  const steps = QUICKSTART_STEPS.map(({ id, title }) => {
    const at = completed.get(id);
    return { id, title, completed: at !== undefined, completed_at: at ? at.toISOString() : null };
  });
  return { steps, all_completed: steps.every((s) => s.completed) };
}
