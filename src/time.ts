/**
 * @module
 * Units of time in milliseconds, the one source of every duration written in days, hours
 * or minutes (as `@std/datetime`'s constants, which cannot be imported here).
 */

export const MINUTE_MS = 60 * 1000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
