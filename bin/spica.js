#!/usr/bin/env node
// Entry point for `npx spica`: TypeScript runs through tsx's loader, so `npm ci` is the only setup step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
