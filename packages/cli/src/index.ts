export { createProgram, run } from './program.js';
export { UsageError } from './errors.js';
