export * from './mutations.js';
export * from './requests.js';
export * from './seed.js';
export * from '../base/unique.js';
export * from './values.js';
