import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/cli.js';

// each test file cleans up the temporary directories it made
afterAll(() => removeTempDirs());
