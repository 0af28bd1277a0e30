// entitlement_principals (keyed by subject) and entitlement_grants (keyed by principal kind,
// principal and resource): who may see which retrieved sources. Applied through EntitlementService:
// a principal is replaced as a whole (putPrincipal); a grant is only ever added (createGrant), as
// the API has no route that changes or removes one.
import { Type } from 'typebox';
import { normaliseCode } from '../../entitlement/decide.js';
import { GrantBody, PrincipalBody } from '../../entitlement/schemas.js';
import type { GrantBody as EntitlementGrantBody, PrincipalBody as EntitlementPrincipalBody } from '../../entitlement/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, NO_DELETE, sortedStrings, withoutEmpty, type Item, type ResourceKind } from './types.js';

const Comment = Type.Optional(Type.String({ maxLength: 2000 }));
export const PrincipalItem = Type.Object({ ...PrincipalBody.properties, comment: Comment }, { additionalProperties: false });
export const EntitlementGrantItem = Type.Object({ ...GrantBody.properties, comment: Comment }, { additionalProperties: false });

const codes = (value: unknown) => sortedStrings(Array.isArray(value) ? value.map((entry) => normaliseCode(String(entry))) : []);
const residency = (value: unknown) => (typeof value === 'string' ? normaliseCode(value) : null);

export function entitlementPrincipalsKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'entitlement_principals',
    itemSchema: PrincipalItem,
    description: 'entitlement principals, keyed by subject',
    key: (item) => String(item.subject),

    async current() {
      const { items } = await targets.entitlement.listPrincipals();
      return byKey(
        kind,
        items.map((principal) =>
          withoutEmpty({
            subject: principal.subject,
            agent: principal.agent,
            display: principal.display,
            groups: sortedStrings(principal.groups),
            clearances: sortedStrings(principal.clearances),
            purposes: sortedStrings(principal.purposes),
            residency: principal.residency,
          }),
        ),
      );
    },

    // A save replaces the principal: fields left out are emptied.
    normalise: (item) => ({
      ...item,
      agent: item.agent ?? null,
      display: item.display ?? null,
      groups: sortedStrings(item.groups ?? []),
      clearances: codes(item.clearances),
      purposes: codes(item.purposes),
      residency: residency(item.residency),
    }),

    blocked: (change) => (change.action === 'delete' ? NO_DELETE('an entitlement principal', 'empty its clearances instead') : null),

    async apply(change, { caller }) {
      const { comment: _comment, ...body } = change.desired as Item;
      await targets.entitlement.putPrincipal(caller, withoutEmpty(body) as EntitlementPrincipalBody);
    },
  };
  return kind;
}

export function entitlementGrantsKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'entitlement_grants',
    itemSchema: EntitlementGrantItem,
    description: 'entitlement grants, keyed by principal_kind:principal on resource',
    key: (item) => `${String(item.principal_kind ?? 'subject')}:${String(item.principal)} on ${String(item.resource)}`,

    async current() {
      const { items } = await targets.entitlement.listGrants();
      const seen = new Set<string>();
      const unique: Item[] = [];
      // Two grants with one key are one entry of the document: the oldest stands for both.
      for (const grant of items) {
        const item = withoutEmpty({
          principal_kind: grant.principal_kind,
          principal: grant.principal,
          resource: grant.resource,
          classes: sortedStrings(grant.classes),
          purposes: sortedStrings(grant.purposes),
          residency: grant.residency,
        });
        if (seen.has(kind.key(item))) continue;
        seen.add(kind.key(item));
        unique.push(item);
      }
      return byKey(kind, unique);
    },

    normalise: (item) => ({ ...item, principal_kind: item.principal_kind ?? 'subject', classes: codes(item.classes), purposes: codes(item.purposes), residency: residency(item.residency) }),

    blocked(change) {
      if (change.action === 'delete') return NO_DELETE('an entitlement grant', 'leave it in the document');
      if (change.action === 'change') return 'an entitlement grant cannot be changed through the API; give the new grant its own resource or principal';
      return null;
    },

    async apply(change, { caller }) {
      const { comment: _comment, ...body } = change.desired as Item;
      await targets.entitlement.createGrant(caller, withoutEmpty(body) as EntitlementGrantBody);
    },
  };
  return kind;
}
