// GET /api/providers: the neutrality surface. Everything here is read from the settings and the
// judgment posture in memory; keys are only ever reported as set or not set.
import { isLocalHost, parseTier } from '../../engine/detectors/judgment/tiers.js';
import type { Config } from '../../infra/config/schema.js';
import type { DetectorView } from '../detectors/schemas.js';
import type { PostureView } from '../judgment/schemas.js';
import type { Providers } from './schemas.js';

/** The judgment detectors: the only ones that may send text off the machine. */
const JUDGMENT_DETECTORS = new Set(['injection.judgment', 'pii.judgment']);

export interface ProvidersDeps {
  config: Pick<Config, 'upstream_openai_base_url' | 'upstream_openai_api_key' | 'upstream_anthropic_base_url' | 'upstream_anthropic_api_key' | 'allow_egress'>;
  posture: () => PostureView;
  detectors: () => DetectorView[];
  /** Whether an environment variable is set (its value is never read into the answer). */
  envSet: (name: string) => boolean;
}

/** Scheme, host and path: user info, query and fragment are dropped, they may carry secrets. */
function bareUrl(raw: string): { url: string; host: string; where: 'local' | 'hosted' } {
  try {
    const url = new URL(raw);
    return { url: `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`, host: url.host, where: isLocalHost(url.hostname) ? 'local' : 'hosted' };
  } catch {
    return { url: '(unreadable)', host: '(unreadable)', where: 'hosted' };
  }
}

export class ProvidersService {
  constructor(private readonly deps: ProvidersDeps) {}

  view(): Providers {
    const { config, envSet } = this.deps;
    const openai = bareUrl(config.upstream_openai_base_url);
    const anthropic = bareUrl(config.upstream_anthropic_base_url);
    const openaiKey = config.upstream_openai_api_key !== null;
    const upstreams: Providers['upstreams'] = [
      { api: 'chat-completions', route: '/v1/chat/completions', base_url: openai.url, host: openai.host, where: openai.where, key_setting: 'upstream_openai_api_key', key_set: openaiKey },
      { api: 'responses', route: '/v1/responses', base_url: openai.url, host: openai.host, where: openai.where, key_setting: 'upstream_openai_api_key', key_set: openaiKey },
      {
        api: 'messages',
        route: '/v1/messages',
        base_url: anthropic.url,
        host: anthropic.host,
        where: anthropic.where,
        key_setting: 'upstream_anthropic_api_key',
        key_set: config.upstream_anthropic_api_key !== null,
      },
    ];

    const posture = this.deps.posture();
    // The posture view names tiers `host/model`; the tier strings give the host and key variable.
    const parsed = new Map<string, { host: string; keyEnv: string | null }>();
    for (const spec of posture.tiers) {
      const tier = parseTier(spec);
      if (!('error' in tier)) parsed.set(tier.name, { host: new URL(tier.endpoint).host, keyEnv: tier.apiKeyEnv });
    }
    const tiers: Providers['judgment']['tiers'] = posture.effective_tiers.map((tier) => {
      const found = parsed.get(tier.name);
      const keyEnv = found?.keyEnv ?? null;
      return {
        name: tier.name,
        kind: tier.kind,
        model: tier.model,
        host: tier.kind === 'deterministic' ? null : (found?.host ?? null),
        key_env: keyEnv,
        key_set: keyEnv === null ? null : envSet(keyEnv),
        used: tier.used,
        why_not: tier.why_not,
      };
    });
    const hostedJudgment = tiers.filter((tier) => tier.kind === 'hosted' && tier.used && tier.host !== null).map((tier) => tier.host as string);
    const judgmentHosts = tiers.filter((tier) => tier.kind !== 'deterministic' && tier.used && tier.host !== null).map((tier) => tier.host as string);

    const detectors: Providers['detectors'] = this.deps
      .detectors()
      .filter((detector) => detector.enabled)
      .map((detector) => {
        const judgment = JUDGMENT_DETECTORS.has(detector.key);
        return {
          key: detector.key,
          runs: judgment && hostedJudgment.length > 0 ? ('remote' as const) : ('local' as const),
          available: detector.available,
          sends_to: judgment ? [...new Set(judgmentHosts)] : [],
        };
      });

    const hostedUpstreams = upstreams.filter((upstream) => upstream.where === 'hosted').map((upstream) => upstream.host);
    return {
      upstreams,
      judgment: { backend: posture.backend, fail_closed: posture.fail_closed, source: posture.source, sends_off_machine: posture.sends_off_machine, tiers },
      egress: {
        allow_egress: config.allow_egress,
        pii_egress: posture.pii_egress,
        hosted_destinations: [...new Set([...hostedUpstreams, ...hostedJudgment])].sort(),
      },
      detectors,
      exports: {
        targets: [],
        note: 'the gateway pushes to no export target: SIEM systems pull GET /api/export/siem, and OTLP spans are received on POST /v1/traces',
      },
    };
  }
}
