import { describe, expect, it } from 'vitest';
import { Problem } from '../http/problems.js';
import { actorOf, hasRole, speakingAgent, type Principal } from './principal.js';

const agent: Principal = { kind: 'agent', credentialId: 'cred_1', identityId: 'idn_1', agentSlug: 'billing', expiresAt: null };
const traffic: Principal = { kind: 'traffic', tokenId: 'tok_t', tokenHash: 'h', name: 'app', owner: 'app', expiresAt: null };
const viewer: Principal = { kind: 'operator', role: 'viewer', tokenId: 'tok_v', tokenHash: 'h', name: 'v', owner: 'vera', expiresAt: null };

function statusOf(run: () => unknown): number {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    return (error as Problem).status;
  }
  return 200;
}

describe('speakingAgent', () => {
  it.each([
    ['an agent credential alone', agent, {}, 'billing'],
    ['an agent credential naming itself', agent, { body: 'billing', header: 'billing' }, 'billing'],
    ['a traffic token naming the agent in the body', traffic, { body: 'support' }, 'support'],
    ['a traffic token naming the agent in the header', traffic, { header: 'support' }, 'support'],
  ])('accepts %s', (_case, principal, named, expected) => {
    expect(speakingAgent(principal, named)).toBe(expected);
  });

  it.each([
    ['an agent credential naming another agent in the body', agent, { body: 'support' }, 403],
    ['an agent credential naming another agent in the header', agent, { header: 'support' }, 403],
    ['a traffic token whose header and body disagree', traffic, { body: 'a', header: 'b' }, 403],
    ['a traffic token naming no agent', traffic, {}, 400],
    ['an operator token', viewer, { body: 'billing' }, 403],
  ])('refuses %s', (_case, principal, named, status) => {
    expect(statusOf(() => speakingAgent(principal, named))).toBe(status);
  });
});

describe('roles', () => {
  it('ranks viewer < operator < admin and gives agents and traffic tokens no role', () => {
    expect(hasRole(viewer, 'viewer')).toBe(true);
    expect(hasRole(viewer, 'operator')).toBe(false);
    expect(hasRole({ ...viewer, role: 'admin' }, 'operator')).toBe(true);
    expect(hasRole(agent, 'viewer')).toBe(false);
    expect(hasRole(traffic, 'viewer')).toBe(false);
  });

  it('names actors for the audit log', () => {
    expect(actorOf(agent)).toBe('agent:billing');
    expect(actorOf(viewer)).toBe('vera (tok_v)');
    expect(actorOf(null)).toBe('anonymous');
  });
});
