// Who is signed in: the token (for this tab only) and what GET /api/me says of it. Pages ask
// `can('operator')` before they show a button, so a viewer sees none it cannot use.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, problemText, tokenStore } from './api/client';

export type Role = 'viewer' | 'operator' | 'admin';
const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

export interface Me {
  kind: 'operator' | 'traffic' | 'agent';
  role: Role | null;
  name: string;
}

interface AuthState {
  me: Me | null;
  /** True while a stored token is being checked at load. */
  checking: boolean;
  signIn(token: string): Promise<string | null>;
  signOut(): void;
  /** Whether the signed-in operator has at least `role`. */
  can(role: Role): boolean;
}

const AuthContext = createContext<AuthState | null>(null);

async function whoIs(): Promise<{ me: Me } | { error: string }> {
  const { data, error } = await api.GET('/api/me');
  if (data === undefined) return { error: problemText(error) };
  return { me: { kind: data.kind, role: data.role, name: data.name } };
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(tokenStore.get() !== null);

  useEffect(() => {
    if (tokenStore.get() === null) return;
    void whoIs().then((answer) => {
      if ('me' in answer) setMe(answer.me);
      else tokenStore.clear();
      setChecking(false);
    });
  }, []);

  const signIn = useCallback(async (token: string) => {
    tokenStore.set(token.trim());
    const answer = await whoIs();
    if ('error' in answer) {
      tokenStore.clear();
      return answer.error;
    }
    if (answer.me.kind !== 'operator') {
      tokenStore.clear();
      return 'This is an agent or traffic credential: the console needs an operator token.';
    }
    setMe(answer.me);
    return null;
  }, []);

  const signOut = useCallback(() => {
    tokenStore.clear();
    setMe(null);
  }, []);

  const value = useMemo<AuthState>(
    () => ({ me, checking, signIn, signOut, can: (role) => me?.role !== null && me?.role !== undefined && RANK[me.role] >= RANK[role] }),
    [me, checking, signIn, signOut],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (state === null) throw new Error('useAuth outside AuthProvider');
  return state;
}
