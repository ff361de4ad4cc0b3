#!/usr/bin/env node
// Node 22.1+ keeps compiled code between runs; Node 20 has no such cache and skips this.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/lbrl.js');
