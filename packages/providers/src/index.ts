export * from "./types";
export * from './fcm';
export * from './registry';
export * from './pool';
