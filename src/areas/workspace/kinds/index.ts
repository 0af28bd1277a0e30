// The resource kinds of the workspace document, in the order the document lists them and apply
// makes their changes: what a kind needs exists before it (agents before their grants, MCP
// servers and sources before the monitors that watch them).
import { agentsKind } from './agents.js';
import { answerabilityKind } from './answerability.js';
import { businessRulesKind } from './business-rules.js';
import { customRulesKind } from './custom-rules.js';
import { entitlementGrantsKind, entitlementPrincipalsKind } from './entitlement.js';
import { escalationPoliciesKind } from './escalation.js';
import { evalSuitesKind } from './eval-suites.js';
import { grantsKind } from './grants.js';
import { mcpServersKind } from './mcp-servers.js';
import { monitorsKind } from './monitors.js';
import { policiesKind } from './policies.js';
import { slosKind } from './slos.js';
import { sourcesKind } from './sources.js';
import type { WorkspaceTargets } from './targets.js';
import { toolsKind } from './tools.js';
import type { ResourceKind } from './types.js';

export function resourceKinds(targets: WorkspaceTargets): ResourceKind[] {
  return [
    agentsKind(targets),
    grantsKind(targets),
    toolsKind(targets),
    mcpServersKind(targets),
    policiesKind(targets),
    customRulesKind(targets),
    businessRulesKind(targets),
    sourcesKind(targets),
    entitlementPrincipalsKind(targets),
    entitlementGrantsKind(targets),
    answerabilityKind(targets),
    evalSuitesKind(targets),
    slosKind(targets),
    monitorsKind(targets),
    escalationPoliciesKind(targets),
  ];
}
