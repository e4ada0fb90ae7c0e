export * from './catalogue.js';
export * from './field-tables.js';
export * from './headers.js';
export * from './prefix.js';
export * from './schema-files.js';
export * from './validator.js';
export * from './message.js';
