export * from './budget.js';
export * from './coordinator.js';
export * from './pacer.js';
export * from './remote.js';
export * from './over-limit.js';
