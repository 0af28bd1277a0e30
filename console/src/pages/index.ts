// Every page of the console: its path under /console, its title in the navigation and its module
// (loaded when first visited). A page for a new area is one file in this folder and one entry here.
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

export interface PageEntry {
  /** wouter pattern below /console (e.g. `/agents/:slug`). */
  path: string;
  /** Shown in the navigation; absent: a detail page reached from a list. */
  nav?: string;
  component: LazyExoticComponent<ComponentType>;
}

export const PAGES: PageEntry[] = [
  { path: '/', nav: 'Overview', component: lazy(() => import('./overview')) },
  { path: '/decisions', nav: 'Decisions', component: lazy(() => import('./decisions')) },
  { path: '/decisions/:id', component: lazy(() => import('./decision')) },
  { path: '/findings', nav: 'Findings', component: lazy(() => import('./findings')) },
  { path: '/findings/:id', component: lazy(() => import('./finding')) },
  { path: '/agents', nav: 'Agents', component: lazy(() => import('./agents')) },
  { path: '/agents/:slug', component: lazy(() => import('./agent')) },
  { path: '/approvals', nav: 'Approvals', component: lazy(() => import('./approvals')) },
  { path: '/policies', nav: 'Policies', component: lazy(() => import('./policies')) },
  { path: '/policies/:key', component: lazy(() => import('./policy')) },
  { path: '/audit', nav: 'Audit & evidence', component: lazy(() => import('./audit')) },
  { path: '/compliance', nav: 'Compliance', component: lazy(() => import('./compliance')) },
  { path: '/evaluations', nav: 'Evaluations', component: lazy(() => import('./evaluations')) },
  { path: '/redteam', nav: 'Red team', component: lazy(() => import('./redteam')) },
  { path: '/sources', nav: 'Sources', component: lazy(() => import('./sources')) },
  { path: '/escalation', nav: 'Escalation', component: lazy(() => import('./escalation')) },
];
