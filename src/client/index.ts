export * from './client.js';
export * from './exchange.js';
export * from './redact.js';
export * from './signer.js';
export * from './token.js';
