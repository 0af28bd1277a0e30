// What an SLO over online results stands at: attainment over its window, the error budget it has
// used, and how fast the last day burns it. Pure: the service reads the windows, this judges them.
import type { WindowAggregate } from './drift.js';

export interface SloMeasure {
  attainment: number | null;
  n: number;
  error_budget: number;
  budget_consumed: number | null;
  budget_remaining: number | null;
  burn_rate_1d: number | null;
  status: 'met' | 'at_risk' | 'breached' | 'no_data';
}

/**
 * attainment = pass rate over the window; budget_consumed = (1 − attainment) / (1 − target), past 1
 * when breached; burn_rate_1d = the last day's failure rate / (1 − target): above 1 spends the
 * budget faster than the objective allows, so a met SLO burning that fast is at_risk.
 */
export function measureSlo(target: number, window: WindowAggregate, lastDay: WindowAggregate): SloMeasure {
  const errorBudget = 1 - target;
  const burn = lastDay.n === 0 ? null : (1 - lastDay.passed / lastDay.n) / errorBudget;
  if (window.n === 0) {
    return { attainment: null, n: 0, error_budget: errorBudget, budget_consumed: null, budget_remaining: null, burn_rate_1d: burn, status: 'no_data' };
  }
  const attainment = window.passed / window.n;
  const consumed = (1 - attainment) / errorBudget;
  const status = attainment < target ? 'breached' : burn !== null && burn > 1 ? 'at_risk' : 'met';
  return {
    attainment,
    n: window.n,
    error_budget: errorBudget,
    budget_consumed: consumed,
    budget_remaining: Math.max(0, 1 - consumed),
    burn_rate_1d: burn,
    status,
  };
}
