// Answer and body types of the policy, audit and evidence routes, taken from the generated API
// types so a page never restates a wire shape; and `attempt`, which turns a change's answer into
// the refusal to show.
import { problemText, type paths } from '../api/client';

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON answer of `method path` with status 200. */
type Answer<P extends keyof paths, M extends 'get' | 'post'> = paths[P][M] extends { responses: { 200: infer R } } ? JsonOf<R> : never;
/** The JSON body `method path` takes. */
type BodyOf<P extends keyof paths, M extends 'post'> = paths[P][M] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

export type PolicyVersion = Answer<'/api/policies/{key}', 'get'>['versions'][number];
export type Proposal = Answer<'/api/proposals', 'get'>['items'][number];
export type LintReport = Answer<'/api/policies/lint', 'get'>;
export type Simulation = Answer<'/api/policies/simulate', 'post'>;
export type Canary = Answer<'/api/policies/{key}/canary', 'get'>;
export type AuditEntry = Answer<'/api/audit/entries', 'get'>['items'][number];
export type Verification = Answer<'/api/audit/verify', 'post'>;
export type EvidencePackage = Answer<'/api/evidence', 'get'>['items'][number];
export type EvidenceRequest = BodyOf<'/api/evidence', 'post'>;

/**
 * Runs a mutating call and gives the refusal to show (null when it succeeded), so each button
 * reports the API's problem the same way.
 */
export async function attempt(call: Promise<{ error?: unknown; response: Response }>): Promise<string | null> {
  try {
    const answer = await call;
    return answer.response.ok ? null : problemText(answer.error);
  } catch (error) {
    return problemText(error);
  }
}
