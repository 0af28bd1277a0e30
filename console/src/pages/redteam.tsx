// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function RedteamPage() {
  return <PageHeader title="Redteam" />;
}
