/**
 * Flag and argument specs that several commands take alike: each command module defines its own
 * flags (with its definition) and takes these parts from here. Plain data, cheap to load.
 */
import type { ArgDef, FlagDef } from '../define.js';

const QR_STYLES = ['dark', 'light'] as const;

export const QR_STYLE = {
  flags: '--qr-style <style>',
  help: "dark (light text on a dark terminal) or light; default: the qr-style setting, detect (the terminal's background)",
  complete: QR_STYLES,
} as const satisfies FlagDef;

/** verify and watch --verify: a deposit lbrl has no record of may pay addresses the profile does not know. */
export const TRUST_SERVICE_ADDRESS = {
  flags: '--trust-service-address',
  help: "accept the service's addresses for a deposit with no local record, even if none is the profile's",
} as const satisfies FlagDef;

export const SINCE = {
  flags: '--since <when>',
  help: 'created at or after: a date (2026-11-20, local), a time with offset, or a span back (7d, 12h)',
} as const satisfies FlagDef;

export const UNTIL = {
  flags: '--until <when>',
  help: 'created before: a date (2026-11-21 means up to its start), a time with offset, or a span back',
} as const satisfies FlagDef;

/** The argument of the commands that take one deposit. */
export const ID_ARG = { name: '<id>', help: 'deposit id', complete: 'ids' } as const satisfies ArgDef;
