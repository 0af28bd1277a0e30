// `npm run bench`: the HTTP benchmark (hello-world, /health, /api/me, a 1 KB guard check) and then
// detector quality and speed, then the chat-completions proxy against a fake upstream beside the
// Portkey gateway, then the policy simulation over 1,000 recorded decisions, then guard calls while heavy reports run over 500,000, then how many answered decisions a kill -9 loses. Each part prints its tables and sets a non-zero exit code on a miss.
await import('./run.js');
await import('./detectors.js');
await import('./proxy.js');
await import('./simulate.js');
await import('./report-load.js');
await import('./crash-window.js');
await import('./entitlement.js');
