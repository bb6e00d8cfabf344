export * from './shield.types';
export * from './analysis-request';
