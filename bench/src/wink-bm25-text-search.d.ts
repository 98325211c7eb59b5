/** The part of wink-bm25-text-search (it ships no types) that graded.ts uses. */
declare module 'wink-bm25-text-search' {
  interface Engine {
    defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number; k?: number } }): boolean;
    definePrepTasks(tasks: Array<(text: string) => string[]>): number;
    addDoc(doc: Record<string, string>, id: string | number): number;
    consolidate(): boolean;
    /** [id, score] pairs, best first. */
    search(text: string, limit?: number): Array<[string | number, number]>;
  }
  export default function bm25(): Engine;
}
