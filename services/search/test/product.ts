/** A typical fastener record, as the search tests create them. */
export function product(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Hex bolt M8x40 stainless steel A2',
    collection: 'fasteners',
    record_type: 'product',
    description: 'Fully threaded hexagon head bolt',
    collection_data: { material: 'stainless steel', price: 0.42, ean: '4006381333931', standard: 'DIN 933', in_stock: true, sku: 'HB-M8-40-A2' },
    ...overrides,
  };
}
