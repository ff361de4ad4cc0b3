// Preloaded by bench/ledger.mjs: the process's peak RSS, on stderr at exit.
process.on('exit', () => process.stderr.write(`\nmaxrss-kb=${process.resourceUsage().maxRSS}\n`));
