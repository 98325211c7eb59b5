export * from './modules';
export * from './args';
