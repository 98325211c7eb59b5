/** A deterministic generated product catalogue: names, descriptions, EANs, DIN codes, SKUs, prices, materials, flags. */

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const KINDS = ['hex bolt', 'socket screw', 'washer', 'hex nut', 'threaded rod', 'wood screw', 'rivet', 'anchor', 'pin', 'spring'];
export const MATERIALS = ['steel', 'stainless steel A2', 'stainless steel A4', 'brass', 'aluminium', 'nylon', 'titanium', 'zinc-plated steel'];
export const STANDARDS = ['DIN 933', 'DIN 931', 'DIN 912', 'ISO 4017', 'ISO 4762', 'DIN 125', 'DIN 934', 'DIN EN ISO 4762', 'ISO 7089'];
export const SIZES = ['M3', 'M4', 'M5', 'M6', 'M8', 'M10', 'M12', 'M16', 'M20'];
export const BRANDS = ['Würth', 'Fischer', 'Bossard', 'Hilti', 'Reyher', 'Kellner'];

/** EAN-13 with a valid check digit. */
export function ean13(body12: string): string {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body12[i]) * (i % 2 === 0 ? 1 : 3);
  return body12 + String((10 - (sum % 10)) % 10);
}

export interface CatalogueRecord {
  name: string;
  source_id: string;
  collection_data: {
    description: string;
    ean: string;
    standard: string;
    sku: string;
    price: number;
    material: string;
    size: string;
    brand: string;
    length_mm: number;
    in_stock: boolean;
    rohs: boolean;
  };
}

export function* catalogue(count: number, seed = 42, offset = 0): Generator<CatalogueRecord> {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  for (let i = offset; i < offset + count; i++) {
    const kind = pick(KINDS);
    const material = pick(MATERIALS);
    const size = pick(SIZES);
    const length = 5 * (1 + Math.floor(rnd() * 40));
    const standard = pick(STANDARDS);
    const brand = pick(BRANDS);
    yield {
      name: `${size}x${length} ${kind} ${material} ${standard} #${i}`,
      source_id: `SRC-${i}`,
      collection_data: {
        description: `${brand} ${kind} in ${material}, size ${size}, length ${length} mm, made to ${standard}. Packed in boxes of ${
          50 * (1 + Math.floor(rnd() * 10))
        }; suitable for indoor and outdoor use.`,
        ean: ean13(String(400000000000 + i).padStart(12, '0')),
        standard,
        sku: `${brand.slice(0, 3).toUpperCase()}-${size}-${length}-${String(i).padStart(7, '0')}`,
        price: Math.round(rnd() * 10000) / 100,
        material,
        size,
        brand,
        length_mm: length,
        in_stock: rnd() > 0.2,
        rohs: rnd() > 0.5,
      },
    };
  }
}

const CSV_COLUMNS = ['name', 'source_id', 'description', 'ean', 'standard', 'sku', 'price', 'material', 'size', 'brand', 'length_mm', 'in_stock', 'rohs'];

function csvCell(v: unknown): string {
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvHeader = () => CSV_COLUMNS.join(',') + '\n';
export function csvLine(r: CatalogueRecord): string {
  const flat: Record<string, unknown> = { name: r.name, source_id: r.source_id, ...r.collection_data };
  return CSV_COLUMNS.map((c) => csvCell(flat[c])).join(',') + '\n';
}
export function ndjsonLine(r: CatalogueRecord): string {
  return JSON.stringify({ name: r.name, source_id: r.source_id, ...r.collection_data }) + '\n';
}
