import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/temp.js';

// each test file cleans up the temporary directories it made
afterAll(() => removeTempDirs());
