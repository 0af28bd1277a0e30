/**
 * Upper bound for one detector pass over 1 MB of adversarial input in tests. Catastrophic
 * backtracking turns such inputs into seconds or hours, so a bound this loose still proves the
 * scan is linear, while a shared, busy machine (parallel test files) cannot make it flaky. The
 * speed targets themselves are measured by `npm run bench`.
 */
export const LINEAR_BOUND_MS = 1000;
