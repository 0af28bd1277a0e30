// The services a workspace is read from and applied through: each kind changes its resources only
// through the owning area's service, so validation, audit and reloads stay theirs.
import type { Store } from '../../../infra/store/db.js';
import type { AgentService } from '../../agents/service.js';
import type { AgentViewService } from '../../agents/views/service.js';
import type { AnswerabilityService } from '../../answerability/service.js';
import type { BusinessRuleService } from '../../business/service.js';
import type { CustomRuleService } from '../../custom-rules/service.js';
import type { EntitlementService } from '../../entitlement/service.js';
import type { EscalationService } from '../../escalation/service.js';
import type { OnlineService } from '../../eval/online/service.js';
import type { SuiteService } from '../../eval/suites/service.js';
import type { McpService } from '../../mcp/service.js';
import type { MonitorService } from '../../monitors/service.js';
import type { PolicyService } from '../../policies/service.js';
import type { SourceService } from '../../sources/service.js';
import type { ToolService } from '../../tools/service.js';

export interface WorkspaceTargets {
  store: Store;
  agents: AgentService;
  agentViews: AgentViewService;
  tools: ToolService;
  mcp: McpService;
  policies: PolicyService;
  customRules: CustomRuleService;
  businessRules: BusinessRuleService;
  sources: SourceService;
  entitlement: EntitlementService;
  answerability: AnswerabilityService;
  evaluations: { suites: SuiteService; online: OnlineService };
  monitors: MonitorService;
  escalation: EscalationService;
}
