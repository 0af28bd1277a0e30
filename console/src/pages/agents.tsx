// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function AgentsPage() {
  return <PageHeader title="Agents" />;
}
